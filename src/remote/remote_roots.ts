/**
 * Turns the configured sources into roots the catalog serves, from the
 * sources cache alone (start-up never waits on the network): a source with a
 * good copy becomes a root at its commit folder with its prefix; one without
 * becomes an unavailable root carrying a problem, so every local skill is
 * still served. With a lock, only the locked commit with the locked digests
 * is served; with `--frozen` its files are re-hashed first. Runs in the
 * trusted part; requires `--allow-read` on the sources cache.
 *
 * @module
 */

import { join } from "node:path";
import { readWhole } from "../files/bounded_read.ts";
import { resolveSkillFile } from "../files/path_gate.ts";
import type { Problem } from "../skills/problem.ts";
import type { Root } from "../skills/skill.ts";
import type { FetchOutcome } from "./fetch_source.ts";
import { groupSkills, type Lock, type LockedSource, sameSkills, skillPlaces } from "./lock_file.ts";
import type { RemoteCaps } from "./remote_caps.ts";
import { readState, servedDir, sourceKey, type SourceState } from "./sources_cache.ts";
import { isPublisherSpec, type RemoteSource, revisionLabel } from "./remote_source.ts";
import type { ExtractedFile } from "./tar_extract.ts";

/** How to judge the cache. */
export interface RemoteRootOptions {
  readonly cacheDir: string;
  readonly lock: Lock | null;
  /** `--frozen`: re-hash the cached files against the lock; refuse a source missing from it. */
  readonly frozen: boolean;
  readonly caps: RemoteCaps;
  /**
   * The lock file's path as configured (`--lock`, else ./skillgate.lock),
   * named in the messages that send the user to `skillgate sync`.
   * @default "the lock file"
   */
  readonly lockPath?: string;
  /**
   * Why the sources cache folder must not be trusted (another user's, writable by others, a
   * symlink, under a swappable folder: `cacheFolderProblem`), or null. When set, every source is
   * unavailable with this problem and nothing of the cache is read (review r14, H1).
   * @default null
   */
  readonly cacheProblem?: string | null;
}

/**
 * The roots for every source, in configuration order.
 *
 * @param sources The configured sources.
 * @param options Cache folder, lock, frozen, caps.
 * @param outcomes The last fetch outcome per spec (after a background
 *   fetch), to report a failed fetch as a served-stale or unavailable
 *   problem. @default none (start-up)
 * @returns One root per source (`from: "remote"`, its prefix and spec).
 */
export async function remoteRoots(
  sources: readonly RemoteSource[],
  options: RemoteRootOptions,
  outcomes: ReadonlyMap<string, FetchOutcome> = new Map(),
): Promise<Root[]> {
  const roots: Root[] = [];
  for (const source of sources) {
    roots.push(await remoteRoot(source, options, outcomes.get(source.spec) ?? null));
  }
  return roots;
}

async function remoteRoot(
  source: RemoteSource,
  options: RemoteRootOptions,
  outcome: FetchOutcome | null,
): Promise<Root> {
  const key = await sourceKey(source);
  const cacheProblem = options.cacheProblem ?? null;
  const state = cacheProblem === null ? await readState(options.cacheDir, key) : null;
  const locked = options.lock?.sources.find((entry) => entry.spec === source.spec) ?? null;
  const base = { from: "remote" as const, prefix: source.prefix, source: source.spec };
  const note = (reason: Problem["reason"], severity: Problem["severity"], detail: string) => ({
    path: source.spec,
    reason,
    severity,
    detail,
  });
  const unavailable = (problem: Problem): Root => ({
    ...base,
    path: join(options.cacheDir, key),
    isUnavailable: true,
    notes: [problem],
  });
  if (cacheProblem !== null) {
    return unavailable(note(
      "remote-unavailable",
      "error",
      `${source.spec} cannot be served: the sources cache folder ${options.cacheDir} ` +
        `${cacheProblem}, so what is in it may not be what was fetched; make it a folder of yours ` +
        "that only you may write (chmod go-w), or set XDG_CACHE_HOME to one",
    ));
  }
  const failure = outcome?.failure ?? null;
  if (options.frozen && locked === null) {
    // Review n8: the message named no lock, so `skillgate sync` without the same --lock pinned
    // the source in ./skillgate.lock while serve kept reading another one.
    const lockPath = options.lockPath ?? "the lock file";
    return unavailable(note(
      "remote-unavailable",
      "error",
      options.lock === null
        ? `${source.spec} cannot be served: --frozen is set and there is no lock file at ` +
          `${lockPath}; run skillgate sync with the same sources and --lock to create it`
        : `${source.spec} is not in the lock ${lockPath} and --frozen is set; run skillgate ` +
          "sync with the same sources and --lock to pin it",
    ));
  }
  const usable = state !== null && state.spec === source.spec ? state : null;
  if (usable === null) {
    return unavailable(note(
      "remote-unavailable",
      "error",
      failure === null
        ? `${source.spec} has not been fetched yet; it is being fetched in the background ` +
          "(or run skillgate sync)"
        : `${source.spec} has no copy to serve: ${failure.message}`,
    ));
  }
  const mismatch = await lockMismatch(usable, locked, options, key, source);
  if (mismatch !== null) {
    return unavailable(note("remote-lock-mismatch", "error", `${source.spec}: ${mismatch}`));
  }
  const notes: Problem[] = [];
  if (failure !== null) {
    notes.push(note(
      "remote-stale",
      "warning",
      `${source.spec} is served from its last good copy (${
        revisionLabel(source.spec, usable.commit)
      }): ` +
        failure.message,
    ));
  }
  if (outcome?.updateAvailable) {
    notes.push(note(
      "remote-update",
      "warning",
      `${source.spec} has moved to ${
        revisionLabel(source.spec, outcome.updateAvailable)
      }; the lock pins ` +
        `${revisionLabel(source.spec, usable.commit)}. Run skillgate sync --update to move it`,
    ));
  }
  for (const problem of usable.problems ?? []) {
    notes.push(note("remote-index", "warning", `${source.spec}: ${problem}`));
  }
  return {
    ...base,
    path: servedDir(options.cacheDir, key, usable.commit, source),
    ...(notes.length === 0 ? {} : { notes }),
  };
}

/**
 * Which sources' cached copies are at the locked commit but no longer match
 * the lock on disk (re-hashed through the path gate), so they must be
 * fetched again. Requires `--allow-read` on the cache.
 *
 * @param sources The configured sources.
 * @param options Cache folder, lock, caps (`frozen` is ignored: always re-hashed).
 * @returns The specs to fetch again.
 */
export async function damagedCopies(
  sources: readonly RemoteSource[],
  options: RemoteRootOptions,
): Promise<Set<string>> {
  const damaged = new Set<string>();
  for (const source of sources) {
    const locked = options.lock?.sources.find((entry) => entry.spec === source.spec) ?? null;
    if (locked === null) continue;
    const key = await sourceKey(source);
    const state = await readState(options.cacheDir, key);
    if (state === null || state.spec !== source.spec || state.commit !== locked.commit) continue;
    if (await lockMismatch(state, locked, { ...options, frozen: true }, key, source) !== null) {
      damaged.add(source.spec);
    }
  }
  return damaged;
}

/** Why the cached copy may not be served under the lock, or null. */
async function lockMismatch(
  state: SourceState,
  locked: LockedSource | null,
  options: RemoteRootOptions,
  key: string,
  source: RemoteSource,
): Promise<string | null> {
  if (locked === null) return null;
  if (state.commit !== locked.commit) {
    return `the cached copy is ${isPublisherSpec(state.spec) ? "" : "commit "}${
      revisionLabel(state.spec, state.commit)
    } and the lock pins ` +
      `${revisionLabel(state.spec, locked.commit)}; the locked ${
        isPublisherSpec(state.spec) ? "index" : "commit"
      } is being fetched in the background`;
  }
  if (!sameSkills(state.skills, locked.skills)) {
    return "the cached copy's files do not match the lock; it is not served";
  }
  if (!options.frozen) return null;
  const files = await hashTree(
    servedDir(options.cacheDir, key, state.commit, source),
    options.caps,
  );
  if (files === null || !sameSkills(groupSkills(files), locked.skills)) {
    return `the cached files do not match the digests in the lock ${
      options.lockPath ?? "file"
    } (--frozen); run skillgate sync with the same --lock to fetch them again`;
  }
  return null;
}

/**
 * Hashes the files the lock's digests cover under `dir` (`skillPlaces()`,
 * the rule that made them from the extracted files, so both sides count the
 * same files; review r14, H6: skipping dot-entries from the top missed a
 * skill under `.claude/skills/`), each read through the path gate below its
 * skill folder (`resolveSkillFile()` + `readWhole()`, the one way skill
 * content is read). A link, a special file, a file over `maxMemberBytes` or more files
 * than `maxMembers` answers null (not the content that was checked).
 */
async function hashTree(
  dir: string,
  caps: RemoteCaps,
): Promise<Map<string, ExtractedFile> | null> {
  let realDir: string;
  try {
    realDir = await Deno.realPath(dir);
  } catch {
    return null;
  }
  const paths: string[] = [];
  const walk = async (relative: string): Promise<boolean> => {
    for await (const entry of Deno.readDir(relative === "" ? realDir : join(realDir, relative))) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isSymlink) return false;
      if (entry.isDirectory) {
        if (!await walk(path)) return false;
        continue;
      }
      if (!entry.isFile || paths.length >= caps.maxMembers) return false;
      paths.push(path);
    }
    return true;
  };
  const files = new Map<string, ExtractedFile>();
  try {
    if (!await walk("")) return null;
    // Read below each file's skill folder, as it is served: the gate refuses dot-segments, and
    // a skill may itself lie under a dot-folder (`.claude/skills/x`).
    for (const [path, place] of skillPlaces(paths)) {
      const skillDir = place.dir === "." ? realDir : join(realDir, place.dir);
      const data = await readWhole(
        await resolveSkillFile(skillDir, place.relative),
        caps.maxMemberBytes,
      );
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
      );
      files.set(path, {
        size: data.length,
        digest: `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`,
      });
    }
    return files;
  } catch {
    return null;
  }
}
