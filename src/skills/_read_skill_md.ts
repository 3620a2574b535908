/**
 * Bounded reading of a skill's SKILL.md through the path gate's verified
 * open: the same `resolveSkillFile()` + `readBounded()` every reader uses
 * (no-follow, non-blocking, location-checked; see `src/files/`), at start-up
 * in the trusted part, in the worker and on every rebuild; a plain regular
 * SKILL.md within the cap is read by the gate's located open first
 * (`openLocatedSync()` + `readLocated()`, the digest isolate's way: no
 * resolve walk in front, the same location check; issue 13, s16). No other code
 * opens skill content (`tests/source_scan_test.ts` holds that): a SKILL.md
 * swapped for a symlink to an outside file, or for a FIFO, while the catalog
 * is built is refused, never served and never waited on.
 *
 * @module
 */

import {
  closeLocated,
  loadGateFs,
  openLocatedSync,
  readBounded,
  readLocated,
} from "../files/bounded_read.ts";
import { retryingOnDescriptorShortage } from "../files/descriptor_shortage.ts";
import { PathRefusedError, resolveSkillFileSync } from "../files/path_gate.ts";
import { joinPath } from "./_path.ts";
import { errorName, escapeProblem, problem } from "./_problems.ts";
import type { SkillCandidate } from "./discover.ts";
import type { Problem } from "./problem.ts";

/**
 * One strict decoder for every SKILL.md: `decode` without `stream` keeps no
 * state between calls, and a new decoder a file cost a few microseconds.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A SKILL.md read within the cap. */
export interface SkillMdText {
  readonly ok: true;
  /**
   * False when the digest was asked for and the handle's version moved
   * during the read (review r6): the bytes may be another version's, so
   * neither their parse nor a digest is kept under the one the gate resolved.
   */
  readonly isVersionRead: boolean;
  /** Lexical path of the file. */
  readonly path: string;
  /** The decoded text, cut at the cap on a UTF-8 boundary. */
  readonly text: string;
  /** Whether the file was longer than the cap. */
  readonly truncated: boolean;
  /** Size in bytes of the open file. */
  readonly size: number;
  /** Modification time in ms since the epoch as the gate saw it, or null. */
  readonly mtimeMs: number | null;
  /** Status change time in ms as the gate saw it, or null. */
  readonly ctimeMs: number | null;
  /** Device id of the open file (the one the gate resolved and verified). */
  readonly dev: number;
  /** Inode number of the open file (null where the platform has none). */
  readonly ino: number | null;
  /**
   * `sha256:` and 64 hexadecimal characters of the whole file, when asked
   * for and the read holds exactly the version the gate resolved (not cut,
   * same size); else null.
   */
  readonly digest: string | null;
}

/** node:crypto's `createHash`, once loaded. */
let createHash: typeof import("node:crypto").createHash | null = null;

/**
 * SKILL.md digests a build computes with `crypto.subtle` before it loads
 * node:crypto. A small catalog's cold build never loads node:crypto before
 * `initialize` is answered (issue 13: loading it cost the worker's first
 * answer ~3-20 ms, more than hashing a dozen files); a large one switches to
 * node:crypto's synchronous hash after these, where `crypto.subtle`'s
 * asynchronous round trip per file (~40 us under load) would add up.
 */
export const SUBTLE_DIGESTS_MAX = 64;

/** Digests computed with `crypto.subtle` so far in this isolate. */
let subtleDigests = 0;

/**
 * The SHA-256 of `bytes` as 64 lowercase hexadecimal characters: with
 * `crypto.subtle` for the first {@linkcode SUBTLE_DIGESTS_MAX} digests while
 * node:crypto is not loaded, else with node:crypto's `createHash` (loaded on
 * the first such digest). Both compute the same SHA-256 over the same bytes.
 *
 * @param bytes The whole file's bytes.
 * @returns The hexadecimal digest.
 *
 * Source: SEP-2640, "Integrity and Verification" (SHA-256 over the raw bytes).
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  if (createHash === null && subtleDigests < SUBTLE_DIGESTS_MAX) {
    subtleDigests++;
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
    );
    let hex = "";
    for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
    return hex;
  }
  createHash ??= (await import("node:crypto")).createHash;
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Reads a candidate's SKILL.md (or `skill.md`) through the path gate: a
 * symlinked SKILL.md is served only when its real path stays inside the
 * skill's real folder and passes the served-file rule (so not a link to a
 * hidden file), and only a regular file is ever opened.
 *
 * @param candidate The skill folder.
 * @param maxBytes Bytes kept at most (`Caps.maxSkillMdBytes`).
 * @param options `withDigest`: also hash the whole file when it was read
 *   whole (SEP-2640 digest; see `SkillMdText.digest`). @default false
 * @returns The text, or the problem that keeps the skill out (severity
 *   `error`): `symlink-escape` (leads outside the skill), `file-not-served`
 *   (leads to a file the served-file rule refuses) or `unreadable-skill-md`
 *   (missing, not a regular file, swapped while read, not UTF-8).
 *
 * Requires `--allow-read` on the skill folder; in the trusted part
 * (`--allow-all`) the gate's location check reads `/proc/self/fd` itself, in
 * the worker it asks the trusted part.
 */
export async function readSkillMd(
  candidate: SkillCandidate,
  maxBytes: number,
  options: { readonly withDigest?: boolean } = {},
): Promise<SkillMdText | { readonly ok: false; readonly problem: Problem }> {
  const path = joinPath(candidate.dir, candidate.skillMdFile);
  const refused = (reason: Problem["reason"], why: string) => ({
    ok: false as const,
    problem: problem(path, reason, "error", `${why}; the skill is not served`),
  });
  // The located read first (the digest isolate's way, issue 13): no resolve walk in front of
  // the open; anything it does not read whole goes the gate's full way below.
  const located = await readSkillMdLocated(candidate, path, maxBytes, options.withDigest === true);
  if (located !== null) return located;
  try {
    // Synchronous resolve: a start-up reads thousands of these (issue 13); same checks.
    const file = resolveSkillFileSync(candidate.realDir, candidate.skillMdFile);
    // A build that keeps the parse and digest under the resolved version checks it held (r6).
    // A moment without a free descriptor (a large build's readers hold many) is waited out, not
    // taken for an unreadable SKILL.md that keeps the skill out (review r6).
    const read = await retryingOnDescriptorShortage(() =>
      readBounded(file, {
        maxBytes: maxBytes + 1,
        checksVersion: options.withDigest === true,
      })
    );
    const truncated = read.bytes.length > maxBytes;
    const kept = truncated
      ? read.bytes.subarray(0, utf8Boundary(read.bytes, maxBytes))
      : read.bytes;
    let text: string;
    try {
      text = UTF8.decode(kept);
    } catch {
      return refused("unreadable-skill-md", `"${path}" is not valid UTF-8. Save it as UTF-8`);
    }
    return {
      ok: true,
      isVersionRead: !read.isVersionMoved,
      path,
      text,
      truncated,
      size: read.sizeBytes,
      mtimeMs: file.mtimeMs,
      ctimeMs: file.ctimeMs,
      dev: file.dev,
      ino: file.ino,
      // The bytes the gate's verified open read, whole and of the resolved version's size: the
      // digest `skills/list` serves for that version, without reading the file again (issue 13).
      digest: options.withDigest === true && !read.isTruncated && !read.isVersionMoved &&
          read.bytes.length === read.sizeBytes && read.sizeBytes === file.size
        ? `sha256:${await sha256Hex(read.bytes)}`
        : null,
    };
  } catch (error) {
    if (!(error instanceof PathRefusedError)) {
      return refused("unreadable-skill-md", `"${path}" cannot be read (${errorName(error)})`);
    }
    switch (error.code) {
      case "outside-skill":
        return { ok: false, problem: skillMdEscapeProblem(path) };
      case "bad-path":
        return refused("file-not-served", `"${path}" is not served: ${error.message}`);
      case "not-a-file":
        return notRegularProblem(path);
      case "not-found":
        return refused("unreadable-skill-md", `"${path}" cannot be read: ${error.message}`);
    }
  }
}

/** SKILL.md files read by the located open so far in this isolate (tests, benchmarks). */
let locatedReads = 0;

/**
 * How many SKILL.md files this isolate read by the located open (without
 * the gate's resolve walk) so far.
 *
 * @returns The count.
 */
export function skillMdLocatedReadsSoFar(): number {
  return locatedReads;
}

/**
 * Reads SKILL.md by the gate's located open (`openLocatedSync` +
 * `readLocated` in `bounded_read.ts`, what the digest isolate uses for every
 * listed file since s13): `O_NOFOLLOW | O_NONBLOCK` open of exactly
 * `skill real folder/SKILL.md`, the handle's own `fstat` as the version, the
 * trusted part's `/proc` answer that the descriptor is exactly that path,
 * the bytes, then the post-read check (review r6: an `lstat` of the path
 * that must still hold the handle's inode at its version). It spares the resolve
 * walk's two `lstat` calls a skill (of SKILL.md and of the skill folder;
 * issue 13, s16: 20,000 calls on the serving worker's thread at 10,000
 * skills). Why the guarantee is the same: bounded_read.ts, `openLocatedSync`.
 *
 * It opens only what discovery's folder read typed a regular file (a FIFO
 * is never opened: its blocked writer would be released) and reads only a
 * plain regular file within the cap: a symlink (served when
 * it stays inside the skill), something else than a regular file, a file
 * over the cap (kept cut, never read whole), a locator that cannot tell, a
 * file that shrank or is not UTF-8, or any open or read error returns null,
 * and the caller takes the gate's full way, whose answer and problems are
 * the ones given then. A descriptor the kernel places anywhere else is
 * refused here with the full way's problem for that answer; a version that
 * moved while read is served as read with `isVersionRead` false and no
 * digest, as the full way does (review r6).
 *
 * @param candidate The skill folder (its real folder as discovery saw it).
 * @param path SKILL.md's lexical path (for the answer).
 * @param maxBytes The cap (`Caps.maxSkillMdBytes`).
 * @param withDigest Whether to hash the bytes (SEP-2640 digest).
 * @returns The text, the refusal (placed elsewhere), or null (nothing decided: use the full way).
 *
 * Requires `--allow-read` on the skill folder and a descriptor locator.
 */
async function readSkillMdLocated(
  candidate: SkillCandidate,
  path: string,
  maxBytes: number,
  withDigest: boolean,
): Promise<SkillMdText | { readonly ok: false; readonly problem: Problem } | null> {
  // Only what discovery's folder read typed a regular file (`d_type`): an open alone can act (a
  // FIFO's blocked writer is released by it; review r6, r8), so anything else is never opened
  // here but `lstat`ed and refused by the full way first. A swap since that read is the full
  // way's own race (its `lstat` before its open), and the open's `fstat` decides what is read.
  // (`entries` may be absent where a caller builds a candidate by hand: the full way then.)
  const entry = (candidate.entries as readonly Deno.DirEntry[] | undefined)?.find((item) =>
    item.name === candidate.skillMdFile
  );
  if (entry?.isFile !== true) return null;
  await loadGateFs();
  const opened = openLocatedSync(candidate.realDir, candidate.skillMdFile);
  if (opened.kind !== "opened") return null;
  const { handle } = opened;
  const { version } = handle;
  if (!version.isFile || version.size > maxBytes) {
    closeLocated(handle);
    return null;
  }
  const bytes = new Uint8Array(version.size);
  let filled = 0;
  let read;
  try {
    read = await readLocated(handle, version.size, (chunk) => {
      // Never past the version's size (readLocated reads at most that much).
      bytes.set(chunk.subarray(0, bytes.length - filled), filled);
      filled += chunk.length;
    }, { reportsMove: true });
  } catch (error) {
    // The kernel placed the descriptor elsewhere (a folder on the way swapped for a link since
    // discovery): refused, as the full way refuses the same answer, without opening it again.
    if (error instanceof PathRefusedError && error.code === "not-a-file") {
      return notRegularProblem(path);
    }
    // An I/O error: the full way decides and says why.
    return null;
  }
  // Cannot tell (no locator answer), or shrank while read: the full way decides.
  if (read === null || read.bytesRead !== version.size || filled !== version.size) return null;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return null;
  }
  locatedReads++;
  // Moved while read (review r6): served as read, but neither its parse nor its digest is kept.
  const isVersionRead = read.isVersionMoved !== true;
  return {
    ok: true,
    isVersionRead,
    path,
    text,
    truncated: false,
    size: read.size,
    mtimeMs: read.mtimeMs,
    ctimeMs: read.ctimeMs,
    dev: read.dev,
    ino: read.ino,
    // Exactly the handle's version's bytes, whole (size checked before and after the read).
    digest: withDigest && isVersionRead ? `sha256:${await sha256Hex(bytes)}` : null,
  };
}

/**
 * SKILL.md is a FIFO, a folder, a device, or was swapped while read: what is
 * wrong and what to do (review s15 L6: the remedy was missing).
 */
function notRegularProblem(path: string): { readonly ok: false; readonly problem: Problem } {
  return {
    ok: false,
    problem: problem(
      path,
      "unreadable-skill-md",
      "error",
      `"${path}" is not a regular file, or changed while it was read; the skill is not served. ` +
        "Replace it with a regular file",
    ),
  };
}

/**
 * SKILL.md itself is a link whose target leaves the skill folder: the
 * `symlink-escape` problem with what to do (review s15 L6).
 */
function skillMdEscapeProblem(path: string): Problem {
  const escape = escapeProblem(path, "the skill folder", "error");
  return problem(
    path,
    "symlink-escape",
    "error",
    `${escape.detail}, so the skill is not served. Copy the file into the skill folder, ` +
      "or move its target inside it",
  );
}

/** The largest cut `<= at` that does not split a UTF-8 sequence (needs the byte at `at`). */
function utf8Boundary(bytes: Uint8Array, at: number): number {
  let cut = at;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return cut;
}
