/**
 * The messages between the serving worker and the digest isolate
 * (`digest_entry.ts`), over the channel the trusted part hands the isolate:
 * files to hash, and for each the version the isolate's path gate saw and
 * the digest of the bytes it read. Everything the isolate sends is checked
 * here before the worker uses it.
 *
 * @module
 */

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
