/**
 * The sources cache: `$XDG_CACHE_HOME/skillgate/sources/` (beside the index
 * cache, never inside it). One folder per source:
 *
 * ```text
 * <cache>/<key>/state.json        the commit served, its ETag, its skills' digests
 * <cache>/<key>/commits/<sha>/<leaf>/  that commit's source PATH, extracted and checked
 *                                 (a publisher: <sha> is its index's SHA-256, <leaf>
 *                                 `agent-skills`, one folder per skill)
 * <cache>/<key>/tmp-<uuid>/       an extraction in progress (never served)
 * ```
 *
 * A commit is extracted into a fresh `tmp-` folder and becomes visible only
 * by two renames after every check passed: the folder to `commits/<sha>`,
 * then a new `state.json` over the old one. A reader sees the old state or
 * the new one, never half. The fetcher writes here; the serving side only
 * reads.
 *
 * @module
 */

import { join } from "node:path";
import { cacheFolderProblem } from "../config/index_cache_dir.ts";
import { groupHoldsOthers } from "../config/group_members.ts";
import { MAX_STATE_BYTES } from "./remote_caps.ts";
import type { SkillDigests } from "./lock_file.ts";
import type { RemoteSource } from "./remote_source.ts";

/** What `state.json` holds: the last good copy of a source. */
export interface SourceState {
  readonly spec: string;
  /** The revision served: a commit (40 hex), or a publisher index's SHA-256 (64 hex). */
  readonly commit: string;
  /** ETag of the last ref resolution or index answer (for conditional polling), or null. */
  readonly etag: string | null;
  /** The revision that answer named (a 304 means it is still current). */
  readonly etagCommit: string | null;
  /** A publisher index's `Last-Modified`, sent as `If-Modified-Since`. @default null */
  readonly lastModified?: string | null;
  /** What a publisher's index reported (skipped entries, an unknown version). @default [] */
  readonly problems?: readonly string[];
  /** The ref the commit was resolved from (null: default branch). */
  readonly ref: string | null;
  /** When this copy was checked, ms since the epoch. */
  readonly checkedAtMs: number;
  readonly skills: Readonly<Record<string, SkillDigests>>;
}

/**
 * The mode of every folder skillgate makes in the sources cache: its owner's
 * alone, so a private repository's files fetched with `GITHUB_TOKEN` are not
 * readable by other users (review r14). The user's own folders above the
 * cache are never changed.
 */
export const FOLDER_MODE = 0o700;

/** The mode of every file skillgate writes in the sources cache (see {@linkcode FOLDER_MODE}). */
export const FILE_MODE = 0o600;

/** A commit (40 hex) or a publisher index digest (64 hex). */
const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The sources cache folder from the environment.
 *
 * @param getEnv Reads `XDG_CACHE_HOME` and `HOME`.
 * @returns `$XDG_CACHE_HOME/skillgate/sources` (absolute XDG only), else
 *   `$HOME/.cache/skillgate/sources`, else null when neither is set.
 */
export function sourcesCacheDir(getEnv: (name: string) => string | undefined): string | null {
  const xdg = getEnv("XDG_CACHE_HOME");
  if (xdg !== undefined && xdg.startsWith("/")) return join(xdg, "skillgate", "sources");
  const home = getEnv("HOME");
  if (home !== undefined && home.startsWith("/")) {
    return join(home, ".cache", "skillgate", "sources");
  }
  return null;
}

/**
 * A source's folder name: `owner-repo-` (a publisher: its prefix) plus 16
 * hex of the SHA-256 of its canonical spec (so two specs of one repository
 * or host never share a folder).
 *
 * @param source The source.
 * @returns A single path segment.
 */
export async function sourceKey(source: RemoteSource): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(source.spec)),
  );
  const hex = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  const name = source.kind === "github" ? `${source.owner}-${source.repo}` : source.prefix;
  return `${name.replace(/[^a-z0-9._-]/g, "-")}-${hex}`;
}

/**
 * The folder served for a commit.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @param commit 40 hex.
 * @returns `<cache>/<key>/commits/<commit>`.
 */
export function commitDir(cacheDir: string, key: string, commit: string): string {
  return join(cacheDir, key, "commits", commit);
}

/**
 * The folder name a source's PATH is extracted under: PATH's last segment,
 * or the repository name when PATH is empty. It is the root discovery
 * walks, so a PATH that is itself a skill is named after its own folder
 * (`github:acme/skills/pdf` serves `acme-skills__pdf`), as a local root is.
 *
 * A publisher's skills sit under `agent-skills/`, one folder per skill.
 *
 * @param source The source.
 * @returns One path segment.
 */
export function sourceLeaf(source: RemoteSource): string {
  if (source.kind === "well-known") return "agent-skills";
  return source.path === "" ? source.repo : source.path.slice(source.path.lastIndexOf("/") + 1);
}

/**
 * The folder served for a source at a commit: the root the catalog walks.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @param commit 40 hex.
 * @param source The source (for {@linkcode sourceLeaf}).
 * @returns `<cache>/<key>/commits/<commit>/<leaf>`.
 */
export function servedDir(
  cacheDir: string,
  key: string,
  commit: string,
  source: RemoteSource,
): string {
  return join(commitDir(cacheDir, key, commit), sourceLeaf(source));
}

/**
 * Reads a source's `state.json`. Requires `--allow-read` on the cache.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @returns The state, or null when there is none or it is unusable (a
 *   half-written or edited file counts as no cache).
 */
export async function readState(cacheDir: string, key: string): Promise<SourceState | null> {
  let text: string;
  try {
    const path = join(cacheDir, key, "state.json");
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size > MAX_STATE_BYTES) return null;
    text = await Deno.readTextFile(path);
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text);
    if (typeof value?.spec !== "string" || !COMMIT.test(value?.commit)) return null;
    if (typeof value.skills !== "object" || value.skills === null) return null;
    return Object.freeze({
      spec: value.spec,
      commit: value.commit,
      etag: typeof value.etag === "string" ? value.etag : null,
      etagCommit: COMMIT.test(value.etagCommit) ? value.etagCommit : null,
      ref: typeof value.ref === "string" ? value.ref : null,
      checkedAtMs: typeof value.checkedAtMs === "number" ? value.checkedAtMs : 0,
      lastModified: typeof value.lastModified === "string" ? value.lastModified : null,
      problems: Array.isArray(value.problems)
        ? value.problems.filter((entry: unknown) => typeof entry === "string")
        : [],
      skills: value.skills,
    });
  } catch {
    return null;
  }
}

/**
 * Makes a fresh extraction folder, first removing `tmp-` folders older than
 * `staleAfterMs` (left by a process that stopped mid-extraction; a younger
 * one may belong to another process sharing the cache). Requires
 * `--allow-read` and `--allow-write` on the cache.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @param staleAfterMs Age in ms beyond which a `tmp-` folder is abandoned.
 *   @default 3600000 (1 hour)
 * @returns The new empty folder `<cache>/<key>/tmp-<uuid>`.
 */
export async function freshExtractionDir(
  cacheDir: string,
  key: string,
  staleAfterMs = 3_600_000,
): Promise<string> {
  await Deno.mkdir(join(cacheDir, key, "commits"), { recursive: true, mode: FOLDER_MODE });
  await assertRealFolders(cacheDir, key);
  for await (const entry of Deno.readDir(join(cacheDir, key))) {
    if (!entry.isDirectory || !entry.name.startsWith("tmp-")) continue;
    const path = join(cacheDir, key, entry.name);
    const info = await Deno.lstat(path).catch(() => null);
    const ageMs = Date.now() - (info?.mtime?.getTime() ?? Date.now());
    if (ageMs > staleAfterMs) await Deno.remove(path, { recursive: true }).catch(() => {});
  }
  const dir = join(cacheDir, key, `tmp-${crypto.randomUUID()}`);
  await Deno.mkdir(dir, { mode: FOLDER_MODE });
  return dir;
}

/**
 * Swaps a checked extraction in: renames it to `commits/<sha>` (an existing
 * folder for the same commit, fetched again because it no longer matched,
 * is moved aside and removed), then
 * replaces `state.json` by rename, then removes older commits but the one
 * served before (a reader may still be on it) and stray `tmp-` folders.
 * Requires `--allow-read` and `--allow-write` on the cache.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @param extracted The folder from {@linkcode freshExtractionDir}, checked.
 * @param state The new state.
 */
export async function swapIn(
  cacheDir: string,
  key: string,
  extracted: string,
  state: SourceState,
): Promise<void> {
  const previous = await readState(cacheDir, key);
  const target = commitDir(cacheDir, key, state.commit);
  try {
    await Deno.rename(extracted, target);
  } catch {
    // The same commit is already there (a rename onto a non-empty folder fails): it was
    // fetched again because the copy on disk no longer matched, so the checked one replaces
    // it. The old one is moved aside first, then removed.
    const aside = join(cacheDir, key, `tmp-${crypto.randomUUID()}`);
    await Deno.rename(target, aside);
    await Deno.rename(extracted, target);
    await Deno.remove(aside, { recursive: true });
  }
  await writeState(cacheDir, key, state);
  await assertRealFolders(cacheDir, key);
  const keep = new Set([state.commit, previous?.commit]);
  for await (const entry of Deno.readDir(join(cacheDir, key, "commits"))) {
    // Only what a swap made: a commit-named real folder (never a link, never another name).
    if (keep.has(entry.name) || !COMMIT.test(entry.name)) continue;
    const path = join(cacheDir, key, "commits", entry.name);
    const info = await Deno.lstat(path).catch(() => null);
    if (info?.isDirectory === true && !info.isSymlink) await Deno.remove(path, { recursive: true });
  }
}

/**
 * Refuses a source folder or its `commits` folder that is not a real folder:
 * every path below is made, listed and removed by name, and Deno's write
 * permission on the cache is lexical, so a symlink there would send the
 * fetcher's writes and removals to wherever it points (review r14, H5). The
 * cache folder's own trust rule ({@linkcode sourcesCacheProblem}) keeps other
 * users out; this keeps a link left from an earlier, unsafe folder from being
 * followed.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @throws Error naming the path when either is a symlink or not a folder.
 *
 * Requires `--allow-read` on the cache.
 */
async function assertRealFolders(cacheDir: string, key: string): Promise<void> {
  for (const path of [join(cacheDir, key), join(cacheDir, key, "commits")]) {
    const info = await Deno.lstat(path);
    if (info.isSymlink || !info.isDirectory) {
      throw new Error(
        `${path} in the sources cache is not a plain folder (a symlink?); nothing was written ` +
          "there. Remove it and fetch again",
      );
    }
  }
}

/**
 * Rewrites `state.json` atomically (for a new ETag or check time).
 * Requires `--allow-write` on the cache.
 *
 * @param cacheDir The sources cache.
 * @param key {@linkcode sourceKey}.
 * @param state The new state.
 */
export async function writeState(cacheDir: string, key: string, state: SourceState): Promise<void> {
  const temporary = join(cacheDir, key, `state.${crypto.randomUUID()}.tmp`);
  await Deno.writeTextFile(temporary, JSON.stringify(state), { createNew: true, mode: FILE_MODE });
  await Deno.rename(temporary, join(cacheDir, key, "state.json"));
}

/**
 * Removes a failed extraction.
 *
 * @param dir The folder from {@linkcode freshExtractionDir}.
 */
export async function discardExtraction(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/**
 * Why the sources cache folder may not be trusted, or null: the index cache's
 * rule (`cacheFolderProblem`: this user's real folder that no other user may
 * write or swap), since skills are served, and under a grant run, from it.
 *
 * @param cacheDir The sources cache folder (created).
 * @returns The problem clause, or null.
 *
 * Requires `--allow-read` on the folder and its ancestors, `--allow-sys`.
 */
export function sourcesCacheProblem(cacheDir: string): string | null {
  try {
    return cacheFolderProblem(cacheDir);
  } catch (error) {
    return `cannot be checked (${error instanceof Error ? error.name : "error"})`;
  }
}

/**
 * Why a source fetched with `GITHUB_TOKEN` must not be written into the
 * sources cache, or null when it may: the cache folder, or the source's
 * folder in it when it exists already (made by an earlier version, or by the
 * user), may be read or entered by another user (any "others" bit, or a
 * group bit of a group that holds another user: `swappableAncestor`'s group
 * rule), so a private repository's files would be theirs to read (review
 * r14). skillgate changes no mode of a folder it did not just make; the
 * problem says which `chmod` to run. Folders skillgate makes are
 * {@linkcode FOLDER_MODE}, so nothing below a source's folder needs a look.
 *
 * @param cacheDir The sources cache folder (it exists).
 * @param key {@linkcode sourceKey}.
 * @returns What is wrong and the `chmod` to run (sentence case, no final
 *   period), or null.
 *
 * Requires `--allow-read` on the cache folder and on `/etc/passwd` and
 * `/etc/group` (a group that cannot be read counts as shared), and
 * `--allow-sys` (`Deno.uid`; unknown: nothing is refused).
 */
export function privateCopyProblem(cacheDir: string, key: string): string | null {
  const uid = Deno.uid();
  if (uid === null) return null;
  for (const path of [cacheDir, join(cacheDir, key)]) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound && path !== cacheDir) continue;
      return `The sources cache folder ${path} cannot be checked ` +
        `(${error instanceof Error ? error.name : "error"}); nothing fetched with GITHUB_TOKEN ` +
        "is written there";
    }
    const mode = info.mode ?? 0;
    const isShared = (mode & 0o005) !== 0 ||
      ((mode & 0o050) !== 0 && (info.gid === null || groupHoldsOthers(info.gid, uid)));
    if (!isShared) continue;
    const octal = (mode & 0o777).toString(8).padStart(3, "0");
    return `${path === cacheDir ? "The sources cache folder" : "The source's cache folder"} ` +
      `${path} may be read by other users (mode ${octal}), and GITHUB_TOKEN is set: a private ` +
      "repository's files fetched with it would be theirs to read, so nothing is fetched into " +
      `it. Make it yours alone: chmod go-rwx '${path}'`;
  }
  return null;
}

/**
 * Makes this configuration's sources' folders (`<cache>/<key>`) in the
 * trusted part, before the fetcher or any reading isolate starts: each part's
 * permission is exactly these folders (review r16, A5), and Deno's
 * permissions are lexical, so each must be a real folder of this user that
 * no other user may write ({@linkcode sourcesCacheProblem}'s rule, applied to
 * the folder itself): one that is a symlink is never followed, nor made a
 * target of any write.
 *
 * @param sourceFolders `RemoteSetup.sourceFolders`: absolute
 *   `<cache>/<key>` paths whose parent is the (already made and trusted) cache.
 * @returns Null when every folder exists and may be trusted, else one clause
 *   naming the first that may not (`<path> is not a folder (or is a
 *   symlink)`, `... belongs to another user`, `... may be written by other
 *   users`).
 *
 * Requires `--allow-read` and `--allow-write` on the cache, `--allow-sys`
 * (the trusted part's `--allow-all`).
 */
export async function makeSourceFolders(
  sourceFolders: readonly string[],
): Promise<string | null> {
  for (const folder of sourceFolders) {
    try {
      // Not recursive: the cache itself was made and checked; a link here is left alone.
      await Deno.mkdir(folder, { mode: FOLDER_MODE });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        return `${folder} cannot be made (${error instanceof Error ? error.name : "error"})`;
      }
    }
    const problem = sourcesCacheProblem(folder);
    if (problem !== null) return `${folder} ${problem}`;
  }
  return null;
}
