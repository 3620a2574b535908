/**
 * The messages between the serving worker and the digest isolate
 * (`digest_entry.ts`), over the channel the trusted part hands the isolate:
 * files to hash, and for each the version the isolate's path gate saw and
 * the digest of the bytes it read. Everything the isolate sends is checked
 * here before the worker uses it.
 *
 * @module
 */

import { MAX_SUBTREE_FOLDERS } from "../../files/fd_listing.ts";
import { checkServedPath } from "../../files/served_name.ts";
import { compareCodeUnits } from "../../skills/_fs.ts";
import { PROBLEM_REASONS } from "../../skills/problem.ts";

/**
 * How often the digest isolate says it is alive while its channel is open, in ms: a
 * timer, so it fires only while the isolate's thread is free (an awaited read lets it
 * through; a thread blocked in a call or a loop stops it).
 */
export const DIGEST_HEARTBEAT_MS = 250;

/** Digest isolate to worker: alive (sent at once on the channel, then every {@linkcode DIGEST_HEARTBEAT_MS}). */
export interface DigestAliveMessage {
  readonly type: "digest-alive";
}

/**
 * Worker to digest isolate, first on the channel: the worker's descriptor
 * progress count, which the isolate's reads count into from then on
 * (`src/files/descriptor_shortage.ts`: a shortage is waited out while either
 * side's reads get descriptors). Anything but a `SharedArrayBuffer` is ignored.
 */
export interface DescriptorProgressMessage {
  readonly type: "descriptor-progress";
  readonly buffer: SharedArrayBuffer;
}

/** Files one job names at most; a longer job is ignored by the isolate. */
export const MAX_DIGEST_JOB_FILES = 1_024;

/** One file to hash: a skill's real folder and the file's relative path, as the snapshot lists it. */
export interface DigestJobFile {
  /** The skill's real folder (`Skill.realDir`). */
  readonly dir: string;
  /** The file's path relative to it (`SkillFile.path`). */
  readonly path: string;
}

/** Worker to digest isolate: hash these files through the gate. */
export interface DigestJobMessage {
  readonly type: "digest-files";
  readonly id: number;
  readonly files: readonly DigestJobFile[];
}

/** The version of one file as the isolate's gate resolved it, and the digest of what it read. */
export interface DigestSeen {
  readonly dev: number;
  readonly ino: number | null;
  /** Size in bytes at resolve time (the version's). */
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
  /** `sha256:` and 64 lowercase hexadecimal characters. */
  readonly digest: string;
  /** Bytes read and hashed (the size of the open handle). */
  readonly bytes: number;
  /** When the read ended, in ms since the epoch (the index cache's racy rule is judged at it). */
  readonly readAtMs: number;
}

/** Digest isolate to worker: one result per file of the job, in order; null when it was not hashed. */
export interface DigestReplyMessage {
  readonly type: "digest-files-reply";
  readonly id: number;
  readonly results: readonly (DigestSeen | null)[];
}

/**
 * Narrows a job the isolate received. Pure.
 *
 * @param data Whatever arrived on the isolate's channel.
 * @returns The job, or null when it is not a well-formed one.
 */
export function parseDigestJob(data: unknown): DigestJobMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const job = data as Record<string, unknown>;
  if (job.type !== "digest-files" || !Number.isSafeInteger(job.id)) return null;
  if (!Array.isArray(job.files) || job.files.length > MAX_DIGEST_JOB_FILES) return null;
  const isFile = (file: unknown) =>
    typeof file === "object" && file !== null &&
    typeof (file as Record<string, unknown>).dir === "string" &&
    typeof (file as Record<string, unknown>).path === "string";
  return job.files.every(isFile) ? data as DigestJobMessage : null;
}

/**
 * Narrows the isolate's reply to a job of `expectedFiles` files. Pure.
 *
 * @param data Whatever the isolate posted.
 * @param expectedFiles How many files the job named (the reply must have as many results).
 * @returns The reply, or null when it is malformed; a malformed result makes
 *   the whole reply null (the worker then hashes those files itself).
 */
export function parseDigestReply(data: unknown, expectedFiles?: number): DigestReplyMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const reply = data as Record<string, unknown>;
  if (reply.type !== "digest-files-reply" || !Number.isSafeInteger(reply.id)) return null;
  if (!Array.isArray(reply.results)) return null;
  if (expectedFiles !== undefined && reply.results.length !== expectedFiles) return null;
  return reply.results.every((result) => result === null || isSeen(result))
    ? data as DigestReplyMessage
    : null;
}

const DIGEST_FORM = /^sha256:[0-9a-f]{64}$/;

function isSeen(value: unknown): value is DigestSeen {
  if (typeof value !== "object" || value === null) return false;
  const seen = value as Record<string, unknown>;
  const isCount = (figure: unknown) => Number.isSafeInteger(figure) && (figure as number) >= 0;
  const isTime = (figure: unknown) => figure === null || Number.isFinite(figure);
  return isCount(seen.dev) && (seen.ino === null || isCount(seen.ino)) && isCount(seen.size) &&
    isTime(seen.mtimeMs) && isTime(seen.ctimeMs) && typeof seen.digest === "string" &&
    DIGEST_FORM.test(seen.digest) && isCount(seen.bytes) && Number.isFinite(seen.readAtMs);
}

/** Skills one listing job names at most; a longer job is ignored by the isolate. */
export const MAX_LIST_JOB_SKILLS = 256;

/** One folder entry of a skill folder, as discovery read it (`Deno.DirEntry`). */
export interface ListJobEntry {
  readonly name: string;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
}

/** A skill folder to list, as discovery found it (the fields `listSkillFiles` reads). */
export interface ListJobSkill {
  readonly name: string;
  /** Absolute lexical path under the root. */
  readonly dir: string;
  /** Its real path (discovery's). */
  readonly realDir: string;
  /** `SKILL.md` or `skill.md`. */
  readonly skillMdFile: string;
  /** The folder's entries, sorted by name, as discovery read them. */
  readonly entries: readonly ListJobEntry[];
  /**
   * Its sub-folders as discovery read them with it (s17, the trusted part's
   * `subtree`: each exactly at `location`), at most `MAX_SUBTREE_FOLDERS`;
   * the listing starts from them instead of asking the trusted part again.
   * @default none
   */
  readonly subfolders?: readonly ListJobFolder[];
}

/** A sub-folder of a skill folder, as discovery's path read gave it (no `lstat`s). */
export interface ListJobFolder {
  /** Its path below the skill folder (plain names joined by `/`). */
  readonly rel: string;
  /** Where the kernel placed it when it was read (the skill's real folder, `/`, `rel`). */
  readonly location: string;
  /** Its entries, sorted by name. */
  readonly entries: readonly ListJobEntry[];
}

/** Worker to digest isolate: list these skills' files and hash them in the same pass. */
export interface DigestListJobMessage {
  readonly type: "list-skills";
  readonly id: number;
  readonly caps: { readonly maxFilesPerSkill: number; readonly maxFoldersPerSkill: number };
  readonly skills: readonly ListJobSkill[];
}

/** One file the isolate listed (SKILL.md's place holds a size-0 stand-in the worker replaces). */
export interface ListedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
  readonly dev: number;
  readonly ino: number | null;
}

/** One problem the listing found (`Problem`, without line and column). */
export interface ListedProblem {
  readonly path: string;
  readonly reason: string;
  readonly severity: string;
  readonly detail: string;
}

/** A skill's listing as `listSkillFiles` gave it in the isolate, and a digest per file. */
export interface ListedSkill {
  /** Sorted by path; SKILL.md's entry is the stand-in (size 0, no version). */
  readonly files: readonly ListedFile[];
  /** Whether a cap cut the walk. */
  readonly truncated: boolean;
  readonly problems: readonly ListedProblem[];
  /** One per file, same order: what the isolate read of it, or null (SKILL.md's always). */
  readonly digests: readonly (DigestSeen | null)[];
}

/** Digest isolate to worker: one result per skill of the job, in order; null when not listed there. */
export interface DigestListReplyMessage {
  readonly type: "list-skills-reply";
  readonly id: number;
  readonly results: readonly (ListedSkill | null)[];
}

/**
 * Narrows a listing job the isolate received. Pure.
 *
 * @param data Whatever arrived on the isolate's channel.
 * @returns The job, or null when it is not a well-formed one.
 */
export function parseListJob(data: unknown): DigestListJobMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const job = data as Record<string, unknown>;
  if (job.type !== "list-skills" || !Number.isSafeInteger(job.id)) return null;
  const caps = job.caps as Record<string, unknown> | null;
  if (typeof caps !== "object" || caps === null) return null;
  if (!isCount(caps.maxFilesPerSkill) || !isCount(caps.maxFoldersPerSkill)) return null;
  if (!Array.isArray(job.skills) || job.skills.length > MAX_LIST_JOB_SKILLS) return null;
  return job.skills.every(isJobSkill) ? data as DigestListJobMessage : null;
}

/**
 * Narrows the isolate's reply to a listing job of `expectedSkills` skills. Pure.
 *
 * @param data Whatever the isolate posted.
 * @param expectedSkills How many skills the job named.
 * @returns The reply, or null when it is malformed (the worker then lists
 *   those skills itself): a result's digests must be as many as its files.
 */
export function parseListReply(
  data: unknown,
  expectedSkills: number,
): DigestListReplyMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const reply = data as Record<string, unknown>;
  if (reply.type !== "list-skills-reply" || !Number.isSafeInteger(reply.id)) return null;
  if (!Array.isArray(reply.results) || reply.results.length !== expectedSkills) return null;
  return reply.results.every((result) => result === null || isListedSkill(result))
    ? data as DigestListReplyMessage
    : null;
}

const isCount = (figure: unknown) => Number.isSafeInteger(figure) && (figure as number) >= 0;
const isTime = (figure: unknown) => figure === null || Number.isFinite(figure);
const isText = (value: unknown) => typeof value === "string";

function isJobSkill(value: unknown): value is ListJobSkill {
  if (typeof value !== "object" || value === null) return false;
  const skill = value as Record<string, unknown>;
  return isText(skill.name) && isText(skill.dir) && isText(skill.realDir) &&
    isText(skill.skillMdFile) && isJobEntries(skill.entries) &&
    (skill.subfolders === undefined ||
      Array.isArray(skill.subfolders) && skill.subfolders.length <= MAX_SUBTREE_FOLDERS &&
        skill.subfolders.every((folder: unknown) => {
          if (typeof folder !== "object" || folder === null) return false;
          const item = folder as Record<string, unknown>;
          return isText(item.rel) && isText(item.location) && isJobEntries(item.entries);
        }));
}

function isJobEntries(value: unknown): value is ListJobEntry[] {
  return Array.isArray(value) && value.every((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return false;
    const item = entry as Record<string, unknown>;
    return isText(item.name) && typeof item.isFile === "boolean" &&
      typeof item.isDirectory === "boolean" && typeof item.isSymlink === "boolean";
  });
}

function isListedSkill(value: unknown): value is ListedSkill {
  if (typeof value !== "object" || value === null) return false;
  const listed = value as Record<string, unknown>;
  if (!Array.isArray(listed.files) || !Array.isArray(listed.digests)) return false;
  if (listed.digests.length !== listed.files.length || typeof listed.truncated !== "boolean") {
    return false;
  }
  if (!Array.isArray(listed.problems)) return false;
  return listed.files.every((file: unknown) => {
    if (typeof file !== "object" || file === null) return false;
    const item = file as Record<string, unknown>;
    return isText(item.path) && isCount(item.size) && isTime(item.mtimeMs) &&
      isTime(item.ctimeMs) && isCount(item.dev) && (item.ino === null || isCount(item.ino));
  }) && listed.digests.every((seen: unknown) => seen === null || isSeen(seen)) &&
    listed.problems.every((found: unknown) => {
      if (typeof found !== "object" || found === null) return false;
      const item = found as Record<string, unknown>;
      return isText(item.path) && isText(item.reason) && isText(item.severity) &&
        isText(item.detail);
    });
}

/** Characters of one listing problem's detail at most (the worker's own quote bounded paths). */
export const MAX_LISTED_DETAIL_CHARS = 8_192;

/**
 * Whether a listing the isolate answered for one skill folder is one the
 * worker's own walk (`listSkillFiles`) could have given (review r6): the
 * isolate's listing becomes the catalog's file list, so a hostile or
 * compromised isolate must not list a name the served-file rule refuses,
 * a path twice or out of order, SKILL.md again, more files than the cap,
 * a problem reason that does not exist, or a problem about a path outside
 * the skill folder. Anything else it could still make up (a file that is
 * not there) is refused by the gate at read time, as a vanished file is.
 * Pure.
 *
 * @param listed A result `parseListReply` passed.
 * @param skill The folder the job named (its lexical `dir` and `skillMdFile`).
 * @param caps The job's caps (files and folders per skill).
 * @returns True when the worker may use it; false means list the folder itself.
 */
export function isPlausibleListing(
  listed: ListedSkill,
  skill: { readonly dir: string; readonly skillMdFile: string },
  caps: { readonly maxFilesPerSkill: number; readonly maxFoldersPerSkill: number },
): boolean {
  if (listed.files.length > caps.maxFilesPerSkill) return false;
  let previous: string | null = null;
  for (const file of listed.files) {
    if (checkServedPath(file.path) !== null || file.path === skill.skillMdFile) return false;
    if (previous !== null && compareCodeUnits(previous, file.path) >= 0) return false;
    previous = file.path;
  }
  // One problem an entry at most, and a few about the folder itself (a bound, not a count).
  if (listed.problems.length > caps.maxFilesPerSkill + caps.maxFoldersPerSkill + 16) return false;
  const dir = skill.dir.endsWith("/") ? skill.dir.slice(0, -1) : skill.dir;
  return listed.problems.every((found) =>
    (PROBLEM_REASONS as readonly string[]).includes(found.reason) &&
    (found.severity === "error" || found.severity === "warning") &&
    (found.path === dir || found.path.startsWith(`${dir}/`)) &&
    found.detail.length <= MAX_LISTED_DETAIL_CHARS
  );
}
