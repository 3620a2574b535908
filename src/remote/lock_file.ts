/**
 * `skillgate.lock`: the pinned commit and every skill file's SHA-256 per
 * source, meant to be committed. Read, validate, render (stable order, so a
 * diff shows only real changes), compare with fetched content, and diff two
 * locks for `sync --update`. Pure apart from the two file functions.
 *
 * Format (lockVersion 1):
 * ```json
 * { "lockVersion": 1,
 *   "sources": [
 *     { "spec": "github:acme/skills/catalog@main",
 *       "resolved": { "commit": "<40 hex>" },
 *       "skills": { "pdf": { "files": { "SKILL.md": "sha256:<64 hex>" } } } } ] }
 * ```
 * A skill's key is its folder inside the source PATH (`.` when the PATH is
 * itself a skill); file paths are relative to that folder. A publisher
 * source (`"spec": "https://host/.well-known/agent-skills/"`) is pinned by
 * its index's digest instead of a commit:
 * `"resolved": { "indexDigest": "sha256:<64 hex>" }`, its skills keyed by name.
 *
 * @module
 */

import { checkPathString } from "../files/path_gate.ts";
import { readRegularFile } from "../files/regular_file.ts";
import { MAX_STATE_BYTES } from "./remote_caps.ts";
import { isPublisherSpec } from "./remote_source.ts";
import type { ExtractedFile } from "./tar_extract.ts";

/** Files of one skill: relative path -> `sha256:HEX`. */
export type SkillDigests = Readonly<Record<string, string>>;

/** One source's pin. */
export interface LockedSource {
  readonly spec: string;
  /** The pinned revision: a commit (40 hex), or a publisher index's SHA-256 (64 hex, no prefix). */
  readonly commit: string;
  /** Skill folder -> its files' digests. */
  readonly skills: Readonly<Record<string, SkillDigests>>;
}

/** A parsed lock file. */
export interface Lock {
  readonly sources: readonly LockedSource[];
}

/** A lock file that cannot be used; the message says where and what to do. */
export class LockError extends Error {
  /** @param message What is wrong. */
  constructor(message: string) {
    super(message);
    this.name = "LockError";
  }
}

const COMMIT = /^[0-9a-f]{40}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * Where each file counts in the lock: the nearest folder above it holding a
 * `SKILL.md` (or `skill.md`), and its path below that folder. Files under no
 * skill folder, and those whose path below it the path gate's string rule
 * refuses (`checkPathString`: dot-entries, `node_modules`...), are left out.
 * The one rule for which files a remote source's lock digests cover, used
 * both when the lock is made ({@linkcode groupSkills}) and when `--frozen`
 * re-hashes the cached copy (review r14, H6).
 *
 * @param paths File paths relative to the source's folder, `/`-separated.
 * @returns Path -> `{ dir, relative }` (`dir` "." for the source folder itself).
 */
export function skillPlaces(
  paths: Iterable<string>,
): Map<string, { readonly dir: string; readonly relative: string }> {
  const all = [...paths];
  const skillDirs = new Set<string>();
  for (const path of all) {
    const slash = path.lastIndexOf("/");
    const base = path.slice(slash + 1);
    if (base === "SKILL.md" || base === "skill.md") {
      skillDirs.add(slash < 0 ? "." : path.slice(0, slash));
    }
  }
  const places = new Map<string, { readonly dir: string; readonly relative: string }>();
  for (const path of all) {
    let dir = path.lastIndexOf("/") < 0 ? "." : path.slice(0, path.lastIndexOf("/"));
    while (!skillDirs.has(dir)) {
      if (dir === ".") break;
      dir = dir.lastIndexOf("/") < 0 ? "." : dir.slice(0, dir.lastIndexOf("/"));
    }
    if (!skillDirs.has(dir)) continue;
    const relative = dir === "." ? path : path.slice(dir.length + 1);
    if (checkPathString(relative) !== null) continue;
    places.set(path, { dir, relative });
  }
  return places;
}

/**
 * Groups extracted files into skills: every folder holding a `SKILL.md` (or
 * `skill.md`) is a skill; each file belongs to its nearest such folder;
 * files under no skill, and files the path gate's string rule refuses
 * (dot-entries, `node_modules`), are left out: they are never served
 * ({@linkcode skillPlaces}).
 *
 * @param files Extracted files keyed by path relative to the source PATH.
 * @returns Skill folder (`.` for the top) -> relative path -> digest.
 */
export function groupSkills(
  files: ReadonlyMap<string, ExtractedFile>,
): Record<string, Record<string, string>> {
  // Maps, then own data properties only: a folder or file named like an
  // Object.prototype member (`constructor`, `__proto__`) is a key, never a lookup.
  const skills = new Map<string, Map<string, string>>();
  for (const [path, place] of skillPlaces(files.keys())) {
    let skill = skills.get(place.dir);
    if (skill === undefined) skills.set(place.dir, skill = new Map());
    skill.set(place.relative, files.get(path)!.digest);
  }
  return ownRecord([...skills].map(([dir, skill]) => [dir, ownRecord(skill)]));
}

/**
 * A plain object of own data properties from untrusted keys: every key,
 * `__proto__` and `constructor` included, becomes an own property (never a
 * prototype write, never a write through an inherited member).
 *
 * @param entries Key-value pairs (a later key wins).
 * @returns The object.
 */
export function ownRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/**
 * Parses and validates a lock file's text.
 *
 * @param text The file's contents.
 * @param where The path, for messages.
 * @returns The lock.
 * @throws {LockError} On JSON errors, a wrong `lockVersion`, a malformed
 *   commit or digest, or a spec listed twice.
 */
export function parseLock(text: string, where: string): Lock {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LockError(`${where} is not JSON (${(error as Error).message}); run skillgate sync`);
  }
  const bad = (what: string) =>
    new LockError(`${where}: ${what}; fix it or delete it and run skillgate sync`);
  if (!isRecord(value) || value.lockVersion !== 1) throw bad("lockVersion must be 1");
  if (!Array.isArray(value.sources)) throw bad("sources must be a list");
  const seen = new Set<string>();
  const sources = value.sources.map((entry, index): LockedSource => {
    if (!isRecord(entry) || typeof entry.spec !== "string") throw bad(`sources[${index}].spec`);
    if (seen.has(entry.spec)) throw bad(`"${entry.spec}" is listed twice`);
    seen.add(entry.spec);
    let commit: unknown;
    if (isPublisherSpec(entry.spec)) {
      const digest = isRecord(entry.resolved) ? entry.resolved.indexDigest : undefined;
      if (typeof digest !== "string" || !DIGEST.test(digest)) {
        throw bad(`"${entry.spec}": resolved.indexDigest must be sha256: and 64 lowercase hex`);
      }
      commit = digest.slice("sha256:".length);
    } else {
      commit = isRecord(entry.resolved) ? entry.resolved.commit : undefined;
      if (typeof commit !== "string" || !COMMIT.test(commit)) {
        throw bad(`"${entry.spec}": resolved.commit must be 40 lowercase hex digits`);
      }
    }
    if (!isRecord(entry.skills)) throw bad(`"${entry.spec}": skills must be an object`);
    const skills = new Map<string, SkillDigests>();
    for (const [dir, skill] of Object.entries(entry.skills)) {
      if (!isRecord(skill) || !isRecord(skill.files)) {
        throw bad(`"${entry.spec}": skill "${dir}" needs files`);
      }
      const files = new Map<string, string>();
      for (const [path, digest] of Object.entries(skill.files)) {
        if (typeof digest !== "string" || !DIGEST.test(digest)) {
          throw bad(`"${entry.spec}": "${dir}/${path}" needs a sha256:HEX digest`);
        }
        files.set(path, digest);
      }
      skills.set(dir, Object.freeze(ownRecord(files)));
    }
    return Object.freeze({
      spec: entry.spec,
      commit: commit as string,
      skills: Object.freeze(ownRecord(skills)),
    });
  });
  return Object.freeze({ sources: Object.freeze(sources) });
}

/**
 * Renders a lock: sources sorted by spec, keys sorted, two-space JSON and a
 * final newline, so the same content always gives the same bytes.
 *
 * @param lock The lock.
 * @returns The file text.
 */
export function renderLock(lock: Lock): string {
  const sources = [...lock.sources].sort((a, b) => compare(a.spec, b.spec)).map((source) => ({
    spec: source.spec,
    resolved: isPublisherSpec(source.spec)
      ? { indexDigest: `sha256:${source.commit}` }
      : { commit: source.commit },
    skills: Object.fromEntries(
      Object.keys(source.skills).sort(compare).map((dir) => [dir, {
        files: Object.fromEntries(
          Object.entries(source.skills[dir]!).sort(([a], [b]) => compare(a, b)),
        ),
      }]),
    ),
  }));
  return `${JSON.stringify({ lockVersion: 1, sources }, null, 2)}\n`;
}

/** What differs between two skill sets. */
export interface SkillChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

/**
 * Compares two skill sets (lock entries or fetched content).
 *
 * @param before The old skills (empty for a new source).
 * @param after The new skills.
 * @returns Skill folders added, removed and changed (any file added, removed
 *   or with another digest), each sorted.
 */
export function diffSkills(
  before: Readonly<Record<string, SkillDigests>>,
  after: Readonly<Record<string, SkillDigests>>,
): SkillChanges {
  // Own keys only: `in` would find `constructor` on every object.
  const added = Object.keys(after).filter((dir) => !Object.hasOwn(before, dir)).sort(compare);
  const removed = Object.keys(before).filter((dir) => !Object.hasOwn(after, dir)).sort(compare);
  const changed = Object.keys(after).filter((dir) => Object.hasOwn(before, dir))
    .filter((dir) => !sameFiles(before[dir]!, after[dir]!)).sort(compare);
  return { added, removed, changed };
}

/**
 * Whether two skill sets hold exactly the same files with the same digests.
 *
 * @param a One set.
 * @param b The other.
 * @returns True when identical.
 */
export function sameSkills(
  a: Readonly<Record<string, SkillDigests>>,
  b: Readonly<Record<string, SkillDigests>>,
): boolean {
  const changes = diffSkills(a, b);
  return changes.added.length + changes.removed.length + changes.changed.length === 0;
}

function sameFiles(a: SkillDigests, b: SkillDigests): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/**
 * Reads the lock at `path`. Requires `--allow-read` on it.
 *
 * @param path The lock file path.
 * @returns The lock, or null when the file does not exist (no lock yet).
 * @throws {LockError} When it exists but cannot be read or parsed.
 */
export async function readLockFile(path: string): Promise<Lock | null> {
  let read;
  try {
    // Never a blocking open: a FIFO at the path would hold start-up for good (review r14, H9).
    read = await readRegularFile(path, MAX_STATE_BYTES);
  } catch (error) {
    throw new LockError(`Cannot read the lock file: ${(error as Error).message}`);
  }
  if (read.kind === "missing") return null;
  if (read.kind !== "read") {
    throw new LockError(
      `The lock file ${path} is not a regular file of at most ${MAX_STATE_BYTES} bytes` +
        (read.kind === "not-regular" ? ` (it is ${read.info.kind})` : "") +
        "; remove it and run skillgate sync to write it again",
    );
  }
  return parseLock(new TextDecoder().decode(read.bytes), path);
}

/**
 * Writes the lock atomically (a temporary file beside it, then rename).
 * Requires `--allow-write` on its folder.
 *
 * @param path The lock file path.
 * @param lock The lock.
 */
export async function writeLockFile(path: string, lock: Lock): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, renderLock(lock), { createNew: true, mode: 0o644 });
  try {
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
