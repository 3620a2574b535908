/**
 * Bounded reads of files the gate resolved, opened so that a symlink swapped
 * in after the check, at any level of the path, cannot make it read another
 * file.
 *
 * Deno has no `openat` or `RESOLVE_BENEATH`, and every path-based call walks
 * the path again (Deno even turns relative paths into absolute ones, so a
 * `chdir` walk gains nothing), so a process that can write inside the skill
 * could swap a folder for a symlink between check and open. Two layers answer
 * that:
 *
 * 1. The exact check: after opening, the kernel is asked where the open
 *    descriptor really is (`/proc/self/fd/<fd>`, through the trusted part; see
 *    `fd_location.ts`); it must be exactly the real path the gate checked.
 * 2. Narrowing, for where no locator can answer: every folder on the way
 *    from the skill's real folder must be a folder (not a symlink) with the
 *    same device and inode before and after the open; the last segment is
 *    opened with `O_NOFOLLOW | O_NONBLOCK` (through `node:fs`: `Deno.open`
 *    takes no such flags); and the handle must be the same regular file
 *    (device and inode) that was resolved; after the open, the checked path
 *    must be its own real path (`realpath`: no ancestor swapped for a link).
 *    Where the locator answers, the
 *    open is direct (the same flags and handle check, no walk) and layer 1
 *    decides (issue 13; the argument is at `openVerified`).
 *
 * Sizes come from the open handle, never from the checks before it (which a
 * swap could point at another file). Buffers are sized from the cap and the
 * file size, never from the file alone.
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import { isLocatorExpectedToAnswer, locateFd } from "./fd_location.ts";
import { isAbsolute, sep } from "node:path";
import {
  isResolvedFile,
  PathRefusedError,
  quotePath,
  type ResolvedFile,
  resolveSkillFileSync,
} from "./path_gate.ts";
import { checkServedPath } from "./served_name.ts";
import { isDescriptorShortage } from "./descriptor_shortage.ts";

/**
 * `node:fs` (the only way to open with `O_NOFOLLOW | O_NONBLOCK`), loaded on
 * the first gated read rather than with the worker's modules: loading it
 * costs ~10 ms of start-up, and a warm start answers `initialize` without
 * reading any skill file (issue 13). Set once {@linkcode openVerified} ran.
 */
let nodeFs: typeof NodeFs | null = null;

/** `node:fs`, once {@linkcode openVerified} loaded it (every descriptor here comes from there). */
function fs(): typeof NodeFs {
  if (nodeFs === null) throw new Error("bounded_read: node:fs used before the first open");
  return nodeFs;
}

function closeSync(fd: number): void {
  fs().closeSync(fd);
}

/** Options of {@linkcode readBounded}. */
export interface ReadBoundedOptions {
  /** Byte offset to start at; at most the file size. @default 0 */
  readonly offsetBytes?: number;
  /** Most bytes returned; a non-negative integer. */
  readonly maxBytes: number;
  /**
   * Also `fstat` the handle after the read and tell whether its size, mtime
   * or change time moved from the resolved version's (`isVersionMoved`): a
   * caller that keeps something under that version (the build's SKILL.md
   * parse and digest) keeps nothing for bytes that may be another's (review
   * r6). @default false
   */
  readonly checksVersion?: boolean;
}

/** What {@linkcode readBounded} read. */
export interface BoundedRead {
  /** At most `maxBytes` bytes from `offsetBytes`. */
  readonly bytes: Uint8Array;
  /** The offset the bytes start at. */
  readonly offsetBytes: number;
  /** File size in bytes when it was opened. */
  readonly sizeBytes: number;
  /** Whether the file has bytes beyond the ones returned. */
  readonly isTruncated: boolean;
  /**
   * With `checksVersion`: whether the handle's size, mtime or change time
   * after the read differ from the resolved version's (the bytes may be of
   * another version). False when not checked.
   */
  readonly isVersionMoved: boolean;
}

/** A file is larger than the cap of a caller that must refuse, not cut. */
export class FileTooLargeError extends RangeError {
  /** The relative path as the client sent it. */
  readonly relPath: string;
  /** File size in bytes. */
  readonly sizeBytes: number;
  /** The cap in bytes. */
  readonly maxBytes: number;

  /**
   * @param relPath The client's relative path (quoted in the message).
   * @param sizeBytes File size in bytes.
   * @param maxBytes The cap in bytes.
   */
  constructor(relPath: string, sizeBytes: number, maxBytes: number) {
    super(
      `File ${quotePath(relPath)} is ${sizeBytes} bytes, over the cap of ${maxBytes} bytes`,
    );
    this.name = "FileTooLargeError";
    this.relPath = relPath;
    this.sizeBytes = sizeBytes;
    this.maxBytes = maxBytes;
  }
}

/**
 * Reads at most `maxBytes` bytes of a resolved file from an offset, reading
 * one extra byte to tell whether the file goes on. Allocates at most
 * `min(maxBytes, size - offsetBytes) + 1` bytes, so a huge or sparse file
 * costs no more than the cap. The handle is always closed.
 *
 * @param file A file issued by `resolveSkillFile`.
 * @param options `maxBytes` (required, non-negative integer) and
 *   `offsetBytes` (non-negative integer, at most the size; default 0).
 * @returns `{bytes, offsetBytes, sizeBytes, isTruncated}`; `bytes.length` is
 *   at most `maxBytes`.
 * @throws {TypeError} When `file` was not issued by the gate.
 * @throws {RangeError} When `maxBytes` or `offsetBytes` is not a
 *   non-negative safe integer, or `offsetBytes` is past the end of the file.
 * @throws {PathRefusedError} `not-found` when the file vanished or cannot be
 *   opened; `not-a-file` when it was swapped (for a symlink, FIFO, folder or
 *   another file) between resolve and open.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: bounded reads in `/work/shared/notes/anchors.md` (read at most
 * cap + 1 bytes; a sparse 256 MiB file must not allocate 256 MiB).
 */
export async function readBounded(
  file: ResolvedFile,
  options: ReadBoundedOptions,
): Promise<BoundedRead> {
  assertIssued(file);
  const maxBytes = checkCount("maxBytes", options.maxBytes);
  const offsetBytes = checkCount("offsetBytes", options.offsetBytes ?? 0);
  const { fd, sizeBytes } = await openVerified(file);
  try {
    if (offsetBytes > sizeBytes) {
      throw new RangeError(
        `Offset ${offsetBytes} is past the end of ${quotePath(file.relPath)} (${sizeBytes} bytes)`,
      );
    }
    const limit = Math.min(maxBytes, sizeBytes - offsetBytes);
    const buffer = readInto(fd, limit + 1, offsetBytes, sizeBytes);
    const isTruncated = buffer.length > limit;
    const bytes = isTruncated ? buffer.subarray(0, limit) : buffer;
    const isVersionMoved = options.checksVersion === true && hasMovedSince(fd, file);
    return { bytes, offsetBytes, sizeBytes, isTruncated, isVersionMoved };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a whole resolved file, refusing (not cutting) one over a cap.
 *
 * @param file A file issued by `resolveSkillFile`.
 * @param maxBytes Largest size accepted in bytes; a non-negative integer.
 * @returns The file's bytes: its first `size` bytes as of open time.
 * @throws {FileTooLargeError} When the size at open time is over `maxBytes`.
 * @throws {TypeError} When `file` was not issued by the gate.
 * @throws {RangeError} When `maxBytes` is not a non-negative safe integer.
 * @throws {PathRefusedError} As for {@linkcode readBounded}.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: callers such as `skill_load` that must refuse over-cap files.
 */
export async function readWhole(file: ResolvedFile, maxBytes: number): Promise<Uint8Array> {
  assertIssued(file);
  checkCount("maxBytes", maxBytes);
  const { fd, sizeBytes } = await openVerified(file);
  try {
    if (sizeBytes > maxBytes) throw new FileTooLargeError(file.relPath, sizeBytes, maxBytes);
    return readInto(fd, sizeBytes, 0);
  } finally {
    closeSync(fd);
  }
}

/** Bytes read at a time by {@linkcode readWholeInChunks}: one buffer per isolate, reused. */
const CHUNK_BYTES = 256 * 1024;
let chunkBuffer: Uint8Array | null = null;

/**
 * {@linkcode readWhole} without holding the file: its bytes are handed to
 * `consume` in chunks of at most 256 KiB from one buffer this isolate
 * reuses, synchronously between the open's check and the close, so reading
 * many large files at once (a digest of each for `skills/list`) holds no
 * more than that buffer (review r4: 64 sparse 16 MB files, which cost a
 * skill author no disk, held 1 GiB at once when each was read whole).
 *
 * @param file A file issued by `resolveSkillFile`.
 * @param maxBytes Largest size accepted in bytes; a non-negative integer.
 * @param consume Called with each chunk in order; the chunk is only valid
 *   during the call (the buffer is reused), so copy what must be kept.
 * @returns The bytes read: the file's first `size` bytes as of open time, or fewer if it shrank.
 * @throws As {@linkcode readWhole}.
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function readWholeInChunks(
  file: ResolvedFile,
  maxBytes: number,
  consume: (chunk: Uint8Array) => void,
): Promise<number> {
  assertIssued(file);
  checkCount("maxBytes", maxBytes);
  const { fd, sizeBytes } = await openVerified(file);
  try {
    if (sizeBytes > maxBytes) throw new FileTooLargeError(file.relPath, sizeBytes, maxBytes);
    const filled = readChunks(fd, sizeBytes, consume);
    // The bytes must be the resolved version's: its digest is stored under that version.
    refuseIfMovedWhileRead(fd, file, quotePath(file.relPath));
    return filled;
  } finally {
    closeSync(fd);
  }
}

/** The version of an open handle (its `fstat`) and the bytes read from it. */
export interface LocatedRead {
  readonly dev: number;
  readonly ino: number | null;
  /** Size in bytes of the open handle (the version's). */
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
  /** Bytes read and handed to `consume`: `size`, or fewer if the file shrank meanwhile. */
  readonly bytesRead: number;
  /**
   * With `reportsMove` only: true when the handle's size, mtime or change
   * time moved while it was read, or its path holds anything but its inode
   * after the read (the bytes may be another version's; keep neither a parse
   * nor a digest of them under this version, review r6).
   */
  readonly isVersionMoved?: boolean;
}

/**
 * {@linkcode readWholeInChunks} of a listed skill file without the path
 * gate's resolve walk in front, where the descriptor-location check answers
 * (issue 13: the digest isolate's ~30,000 files at 10,000 skills, each with
 * an `lstat` per path segment and one of the skill folder before the open,
 * about a fifth of its CPU time). What the resolve checked is checked here
 * as exactly, after the open, on the open handle itself:
 * - the relative path's served-name rules (`checkServedPath`, as the gate's
 *   string check; its real path below the folder is the same string, so the
 *   gate's rule on the real path is the same check);
 * - the file opened is `skillRealDir/relPath`, `O_NOFOLLOW | O_NONBLOCK`
 *   (a symlink in the last segment fails, a FIFO does not block), and the
 *   handle is a regular file (`fstat`);
 * - the kernel places the descriptor at exactly that path string
 *   (`/proc/self/fd`, through the trusted part): no folder on the way was a
 *   symlink (the kernel would name where it led), the skill folder is its own
 *   real path, and the file is inside it. This is the check no swap fools,
 *   the one every gated read already relies on (see `openVerified`).
 *
 * The version returned is the open handle's (device, inode, size, mtime,
 * ctime), never one taken before the open. Where no locator answers (no
 * `/proc`), or it answers null, or the located way does not read the file
 * (a symlink on the way, which the gate serves when it leads to a served
 * file inside the skill; not a regular file; placed elsewhere; the open
 * failed), nothing has been read and the gate's full way decides:
 * `resolveSkillFileSync`, then {@linkcode readWholeInChunks} (narrowed
 * open), the version then being the one the gate resolved.
 *
 * @param skillRealDir The skill's real folder (absolute).
 * @param relPath The file's path in the skill, as the catalog lists it.
 * @param maxBytes Largest size accepted in bytes; a non-negative integer.
 * @param consume Called with each chunk (at most 256 KiB, only valid during the call).
 * @returns The handle's version and the bytes read.
 * @throws {TypeError} When `skillRealDir` is not absolute.
 * @throws {PathRefusedError} `bad-path` for a path the served-name rules
 *   refuse; `not-found` when it does not exist or cannot be opened;
 *   `not-a-file` when it is not a regular file, is a symlink, or the kernel
 *   places the open descriptor anywhere but at exactly that path.
 * @throws {FileTooLargeError} When its size at open time is over `maxBytes`.
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function readLocatedInChunks(
  skillRealDir: string,
  relPath: string,
  maxBytes: number,
  consume: (chunk: Uint8Array) => void,
): Promise<LocatedRead> {
  checkCount("maxBytes", maxBytes);
  if (nodeFs === null) nodeFs = await import("node:fs");
  // A file job runs long after the listing (seconds at 10,000 skills): a folder on the way that
  // is a link by now goes the gate's full way, which refuses before opening (review r6;
  // `openLocatedSync` looks at the folders first). The location check still decides.
  const opened = openLocatedSync(skillRealDir, relPath);
  if (opened.kind === "opened") {
    if (opened.handle.version.isFile) {
      try {
        const read = await readLocated(opened.handle, maxBytes, consume);
        if (read !== null) return read;
      } catch (error) {
        if (!(error instanceof PathRefusedError)) throw error;
        // Placed elsewhere (a swap, or a link to a folder inside the skill): the full gate decides.
      }
    } else closeLocated(opened.handle);
  } else if (opened.kind === "refused" && opened.error.code === "bad-path") throw opened.error;
  // No locator here, or it cannot tell; a symlink on the way (one to a served file inside the
  // skill is served), not a regular file, or the open failed: the gate's full way decides,
  // exactly as for any other read (nothing was read above).
  const file = resolveSkillFileSync(skillRealDir, relPath);
  const bytesRead = await readWholeInChunks(file, maxBytes, consume);
  return {
    dev: file.dev,
    ino: file.ino,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ctimeMs: file.ctimeMs,
    bytesRead,
  };
}

/**
 * Whether a folder between the skill's folder and the file (`a/b` of
 * `a/b/c.md`) is not a plain folder now (a symlink, gone, or another kind),
 * by one `lstat` each; false for a file at the skill's top. A path the
 * served-name rules refuse is left to the caller's check.
 */
function hasFolderLinkOnTheWay(skillRealDir: string, relPath: string): boolean {
  const last = relPath.lastIndexOf("/");
  if (last <= 0 || checkServedPath(relPath) !== null) return false;
  let path = skillRealDir.endsWith("/") ? skillRealDir.slice(0, -1) : skillRealDir;
  for (const segment of relPath.slice(0, last).split("/")) {
    path = `${path}/${segment}`;
    try {
      if (!Deno.lstatSync(path).isDirectory) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** The version of a handle opened by {@linkcode openLocatedSync} (its `fstat`). */
export interface LocatedVersion {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly dev: number;
  readonly ino: number | null;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
}

declare const locatedBrand: unique symbol;

/** A descriptor {@linkcode openLocatedSync} opened; read it once or close it. */
export interface LocatedHandle {
  readonly [locatedBrand]: true;
  /** The skill's real folder and the file's path in it, as asked. */
  readonly skillRealDir: string;
  readonly relPath: string;
  /** The handle's `fstat`, taken right after the open. */
  readonly version: LocatedVersion;
}

/** What {@linkcode openLocatedSync} did. */
export type LocatedOpen =
  | { readonly kind: "opened"; readonly handle: LocatedHandle }
  /**
   * The last segment is a symlink (`O_NOFOLLOW` refused it), or a folder on
   * the way is not a plain folder (a symlink, gone): never followed, never opened.
   */
  | { readonly kind: "link" }
  /** The path breaks a served-name rule, or it could not be opened (the error says why). */
  | { readonly kind: "refused"; readonly error: PathRefusedError }
  /** No locator answers here: use the gate's full way (`resolveSkillFileSync`). */
  | { readonly kind: "no-locator" };

interface HandleState {
  fd: number | null;
  readonly realPath: string;
}

const handleStates = new WeakMap<object, HandleState>();

/**
 * The first half of {@linkcode readLocatedInChunks}, synchronous: the
 * served-name rules on `relPath`, then each folder between the skill's
 * folder and the file looked at (`lstat`: a symlink or anything but a folder
 * there and nothing is opened, `link`), then `skillRealDir/relPath` opened with
 * `O_NOFOLLOW | O_NONBLOCK` and `fstat`'ed. Nothing is read: the handle's
 * location is checked by {@linkcode readLocated} before any byte is, so a
 * caller may take the version now (the digest isolate's listing of a skill,
 * issue 13) and read later, or close the handle unread. The version may be
 * a folder's or a FIFO's (the caller decides; only a regular file is ever read).
 *
 * @param skillRealDir The skill's real folder (absolute).
 * @param relPath The file's path in the skill.
 * @returns The handle, or why there is none (see {@linkcode LocatedOpen}).
 * @throws {TypeError} When `skillRealDir` is not absolute, or `node:fs` was
 *   not loaded yet (call {@linkcode loadGateFs} first).
 *
 * Requires `--allow-read` on the skill folder.
 */
export function openLocatedSync(skillRealDir: string, relPath: string): LocatedOpen {
  if (!isAbsolute(skillRealDir)) throw new TypeError("Skill folder must be an absolute real path");
  if (nodeFs === null) throw new TypeError("openLocatedSync() before loadGateFs() completed");
  const breach = checkServedPath(relPath);
  if (breach !== null) {
    return { kind: "refused", error: new PathRefusedError("bad-path", breach.message) };
  }
  if (sep !== "/" || !isLocatorExpectedToAnswer()) return { kind: "no-locator" };
  // An open alone can act (a device, a FIFO's waiting writer), and the open walks the path
  // again: a folder on the way that is a link by now would lead it outside the skill before any
  // location check. So the folders below the skill are looked at first, one `lstat` each (none
  // for a file at the top, as SKILL.md), and a link among them is never opened through (review
  // r6 for the file job, s11-hD for the digest isolate's listing, which opens right after a
  // folder's read). A swap within the instant between that look and the open is what remains:
  // the open is then non-blocking and without following the last segment, and nothing is read.
  if (hasFolderLinkOnTheWay(skillRealDir, relPath)) return { kind: "link" };
  const realPath = `${
    skillRealDir.endsWith("/") ? skillRealDir.slice(0, -1) : skillRealDir
  }/${relPath}`;
  const quoted = quotePath(relPath);
  let fd: number;
  try {
    fd = openFlaggedPath(realPath, quoted, (cause) => new LinkSeen(cause));
  } catch (error) {
    if (error instanceof LinkSeen) return { kind: "link" };
    return { kind: "refused", error: error as PathRefusedError };
  }
  try {
    const info = fs().fstatSync(fd);
    const version: LocatedVersion = {
      isFile: info.isFile(),
      isDirectory: info.isDirectory(),
      dev: info.dev,
      ino: info.ino,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      ctimeMs: info.ctime?.getTime() ?? null,
    };
    const handle = Object.freeze({ skillRealDir, relPath, version }) as LocatedHandle;
    handleStates.set(handle, { fd, realPath });
    return { kind: "opened", handle };
  } catch (error) {
    closeSync(fd);
    return {
      kind: "refused",
      error: new PathRefusedError("not-found", `File ${quoted} cannot be read`, { cause: error }),
    };
  }
}

/** `O_NOFOLLOW` met a symlink (internal marker of {@linkcode openLocatedSync}). */
class LinkSeen extends Error {
  constructor(cause?: unknown) {
    super("symlink", cause === undefined ? undefined : { cause });
  }
}

/**
 * The second half of {@linkcode readLocatedInChunks}: asks where the
 * kernel places the handle; exactly `skillRealDir/relPath` or nothing is
 * read. Then the whole file, in chunks, up to the handle's `fstat` size,
 * then one `lstat` of that path: it must still hold the handle's own inode
 * (device and inode) at the handle's version (size, mtime, change time), or
 * the version moved while it was read (review r6; an `lstat` of the path
 * rather than a second `fstat` of the handle since s12-hK, see
 * `hasMovedAtPath`: as strict, and stricter where the file was replaced or
 * renamed meanwhile). The handle is closed in every case.
 *
 * @param handle From {@linkcode openLocatedSync}, not read or closed yet; a regular file.
 * @param maxBytes Largest size accepted in bytes; a non-negative integer.
 * @param consume Called with each chunk (at most 256 KiB, only valid during the call).
 * @param options `reportsMove`: a version that moved while read is told in
 *   `isVersionMoved` instead of refused (as `readBounded`'s `checksVersion`
 *   does for the build's SKILL.md read). @default refused
 * @returns The handle's version and the bytes read; null when the locator
 *   cannot tell (nothing read: use the gate's full way).
 * @throws {TypeError} When the handle was not issued here, was used already, or is no regular file.
 * @throws {PathRefusedError} `not-a-file` when the descriptor is anywhere but at that path, or
 *   (without `reportsMove`) its version moved while it was read.
 * @throws {FileTooLargeError} When its size is over `maxBytes`.
 *
 * Requires the installed locator (in an isolate: the trusted part answers), and
 * `--allow-read` on the skill folder.
 */
export async function readLocated(
  handle: LocatedHandle,
  maxBytes: number,
  consume: (chunk: Uint8Array) => void,
  options: { readonly reportsMove?: boolean } = {},
): Promise<LocatedRead | null> {
  const state = handleStates.get(handle);
  if (state === undefined || state.fd === null) {
    throw new TypeError("The handle was not opened by openLocatedSync() or was used already");
  }
  const fd = state.fd;
  try {
    if (!handle.version.isFile) throw new TypeError("Only a regular file's handle is read");
    checkCount("maxBytes", maxBytes);
    const location = await locateFd(fd);
    if (location === null) return null;
    if (location !== state.realPath) throw changedLocated(quotePath(handle.relPath));
    const { version } = handle;
    if (version.size > maxBytes) {
      throw new FileTooLargeError(handle.relPath, version.size, maxBytes);
    }
    const bytesRead = readChunks(fd, version.size, consume);
    // The bytes must be the version returned: the worker stores their digest under it (review r6).
    // Checked by one `lstat` of the path, which must still hold this handle's inode unmoved.
    const isVersionMoved = hasMovedAtPath(state.realPath, version);
    if (isVersionMoved && options.reportsMove !== true) {
      throw new PathRefusedError(
        "not-a-file",
        `File ${quotePath(handle.relPath)} changed while it was read`,
      );
    }
    return {
      dev: version.dev,
      ino: version.ino,
      size: version.size,
      mtimeMs: version.mtimeMs,
      ctimeMs: version.ctimeMs,
      bytesRead,
      ...(options.reportsMove === true ? { isVersionMoved } : {}),
    };
  } finally {
    state.fd = null;
    closeSync(fd);
  }
}

/**
 * Whether the kernel places a handle of {@linkcode openLocatedSync} at
 * exactly `skillRealDir/relPath` (its location asked, as
 * {@linkcode readLocated} asks it; nothing is read, the handle stays open):
 * for a caller that used the handle's version without reading it (the
 * digest isolate's listing of a skill it does not hash, s10-h8).
 *
 * @param handle From {@linkcode openLocatedSync}, not read or closed yet.
 * @returns True when exactly there; false when anywhere else, when the
 *   locator cannot tell, or when the handle was read or closed already.
 *
 * Requires the installed locator (in an isolate: the trusted part answers).
 */
export async function isLocatedInPlace(handle: LocatedHandle): Promise<boolean> {
  const state = handleStates.get(handle);
  if (state === undefined || state.fd === null) return false;
  const location = await locateFd(state.fd);
  return location !== null && location === state.realPath;
}

/**
 * Closes a handle of {@linkcode openLocatedSync} unread (no effect once read or closed).
 *
 * @param handle The handle.
 */
export function closeLocated(handle: LocatedHandle): void {
  const state = handleStates.get(handle);
  if (state === undefined || state.fd === null) return;
  const fd = state.fd;
  state.fd = null;
  closeSync(fd);
}

/**
 * The gate's one `open` call (every descriptor here comes from it): the
 * flags always hold `O_NOFOLLOW` (callers pass them; see each caller).
 */
function openWithFlags(path: string, flags: number): number {
  return fs().openSync(path, flags);
}

/**
 * `O_PATH` where its value is known (Linux on x86_64 and aarch64): a
 * descriptor that names a file or folder without opening it for I/O, so
 * opening one has no side effect whatever it is; elsewhere 0 (a plain
 * read-only open).
 */
const O_PATH = Deno.build.os === "linux" && (Deno.build.arch === "x86_64" ||
    Deno.build.arch === "aarch64")
  ? 0o10000000
  : 0;

/**
 * Opens a folder of a skill so the listing reads it through its descriptor
 * (`src/files/fd_listing.ts`; review r10): `O_DIRECTORY | O_NOFOLLOW`, and
 * `O_PATH` where known (no I/O on the folder itself: the trusted part reads
 * it through `/proc/self/fd`). A symlink in the last segment, or anything
 * but a folder, fails; one on the way is followed, so the caller must check
 * the descriptor's location. Call {@linkcode loadGateFs} first.
 *
 * @param path The folder's absolute real path.
 * @returns The descriptor; close it with {@linkcode closeDescriptor}.
 * @throws {Error} The open's error, with its `code` (`ENOTDIR`, `ELOOP`:
 *   not a folder, or a symlink now; `ENOENT`: gone).
 *
 * Requires `--allow-read` on the folder.
 */
export function openFolderDescriptor(path: string): number {
  const { constants } = fs();
  return openWithFlags(
    path,
    constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | O_PATH,
  );
}

/**
 * Opens any entry of a skill without following it or acting on it, to take
 * its version from the handle (`fstat`) once its location is checked: `O_PATH
 * | O_NOFOLLOW` where known, else the gate's `O_RDONLY | O_NOFOLLOW |
 * O_NONBLOCK`. Call {@linkcode loadGateFs} first.
 *
 * @param path The entry's absolute real path.
 * @returns The descriptor and its `fstat` version; close it with
 *   {@linkcode closeDescriptor}.
 * @throws {Error} The open's error, with its `code`.
 *
 * Requires `--allow-read` on the entry.
 */
export function openEntryDescriptor(path: string): {
  readonly fd: number;
  /** The handle's `fstat`; `isSymlink`: the entry is a symlink itself (opened, not followed). */
  readonly version: LocatedVersion & { readonly isSymlink: boolean };
} {
  const { constants } = fs();
  const flags = O_PATH !== 0
    ? O_PATH | constants.O_NOFOLLOW
    : constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const fd = openWithFlags(path, flags);
  try {
    const info = fs().fstatSync(fd);
    return {
      fd,
      version: {
        isFile: info.isFile(),
        isDirectory: info.isDirectory(),
        isSymlink: info.isSymbolicLink(),
        dev: info.dev,
        ino: info.ino,
        size: info.size,
        mtimeMs: info.mtime?.getTime() ?? null,
        ctimeMs: info.ctime?.getTime() ?? null,
      },
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Closes a descriptor of {@linkcode openFolderDescriptor} or
 * {@linkcode openEntryDescriptor}.
 *
 * @param fd The descriptor.
 */
export function closeDescriptor(fd: number): void {
  closeSync(fd);
}

/**
 * Loads `node:fs` for {@linkcode openLocatedSync} (once; later calls resolve at once).
 *
 * @returns Resolves once the gate can open synchronously.
 */
export async function loadGateFs(): Promise<void> {
  if (nodeFs === null) nodeFs = await import("node:fs");
}

function changedLocated(quoted: string): PathRefusedError {
  return new PathRefusedError("not-a-file", `File ${quoted} changed after it was checked`);
}

/**
 * Refuses a read whose open handle's version (size, mtime, change time, from
 * `fstat` after the last byte was read) is not the version its digest will be
 * stored under (review r6): a same-size rewrite in place between the version's
 * stat and the read (the location check's round trip is an await) keeps the
 * device, inode and size, and the version taken before it may be settled, so
 * without this the digest of the new (or torn) bytes was kept, in memory and
 * in the index cache, for the version before them. A write after this `fstat`
 * does not change the bytes already read.
 *
 * @throws {PathRefusedError} `not-a-file` ("changed while it was read").
 */
function refuseIfMovedWhileRead(
  fd: number,
  version: {
    readonly size: number;
    readonly mtimeMs: number | null;
    readonly ctimeMs: number | null;
  },
  quoted: string,
): void {
  if (hasMovedSince(fd, version)) {
    throw new PathRefusedError("not-a-file", `File ${quoted} changed while it was read`);
  }
}

/** Whether the handle's size, mtime or change time (`fstat` now) differ from `version`'s. */
function hasMovedSince(
  fd: number,
  version: {
    readonly size: number;
    readonly mtimeMs: number | null;
    readonly ctimeMs: number | null;
  },
): boolean {
  const after = fs().fstatSync(fd);
  return after.size !== version.size || (after.mtime?.getTime() ?? null) !== version.mtimeMs ||
    (after.ctime?.getTime() ?? null) !== version.ctimeMs;
}

/**
 * The post-read check of a located handle (review r6: the bytes read must be
 * the version returned), by one `lstat` of the handle's path instead of an
 * `fstat` of the handle (s12-hK: `node:fs`'s `fstatSync` builds a full
 * `Stats` with its dates on every call, ~13 us against ~7-9 us for
 * `Deno.lstatSync` even with the isolates' permission check; one of the two
 * per file at 40,000 files). It is at least as strict as the handle's own
 * `fstat`: the path must hold a regular file (a symlink there is not
 * followed: its own `lstat` is no regular file) of the handle's device and
 * inode, so what is compared is the handle's own inode, and a size, mtime or
 * change time that moved since the handle's `fstat` at its open (a write, a
 * rename) says moved exactly as the handle's would. Anything else at the path
 * now (the file replaced, renamed away, gone, unreadable) also says moved:
 * the bytes are then kept under no version, though they may have been
 * the version's (a false "moved" costs only a later read).
 *
 * @param realPath Where the handle was located (exactly `skill real folder/path`).
 * @param version The handle's version, from its `fstat` at its open.
 * @returns True when the path holds anything but the handle's inode at that version.
 *
 * Requires `--allow-read` on the path (the reader's own skill folder).
 */
function hasMovedAtPath(realPath: string, version: LocatedVersion): boolean {
  let now: Deno.FileInfo;
  try {
    now = Deno.lstatSync(realPath);
  } catch {
    return true;
  }
  return !now.isFile || now.dev !== version.dev || now.ino !== version.ino ||
    now.size !== version.size || (now.mtime?.getTime() ?? null) !== version.mtimeMs ||
    (now.ctime?.getTime() ?? null) !== version.ctimeMs;
}

/** Reads up to `sizeBytes` from offset 0 in chunks of the shared buffer; returns the bytes read. */
function readChunks(fd: number, sizeBytes: number, consume: (chunk: Uint8Array) => void): number {
  const buffer = chunkBuffer ??= new Uint8Array(CHUNK_BYTES);
  let filled = 0;
  while (filled < sizeBytes) {
    const length = Math.min(buffer.length, sizeBytes - filled);
    const bytesRead = fs().readSync(fd, buffer, 0, length, filled);
    if (bytesRead === 0) break;
    consume(buffer.subarray(0, bytesRead));
    filled += bytesRead;
  }
  return filled;
}

function assertIssued(file: ResolvedFile): void {
  if (!isResolvedFile(file)) throw new TypeError("File was not issued by the path gate");
}

function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Option ${name} must be a non-negative integer (got "${value}")`);
  }
  return value;
}

/**
 * Opens the file and then asks the kernel where the open descriptor really
 * is: it must be exactly the checked real path. This is the check no path
 * swap can fool. Returns the descriptor and its size from the one `fstat`
 * of the open handle (issue 13: one syscall fewer per file read).
 *
 * Where the locator answers (Linux, `/proc`), the file is opened directly
 * (`O_NOFOLLOW | O_NONBLOCK`, then the handle's identity), without the walk
 * of {@linkcode openBeneath} around it (issue 13: two to six `lstat` calls
 * of about twelve per file, on the 40,000 files of a first full
 * `skills/list` at 10,000 skills). Why that keeps the guarantee: the walk
 * is the narrowing layer for where no locator can answer; a descriptor the
 * kernel places at exactly the checked real path is the file at that path
 * inside the skill, whatever was swapped on the way (a folder swapped for a
 * symlink leads the open elsewhere, and the kernel names that elsewhere).
 * When the locator answers null (it cannot tell), the descriptor is closed
 * unread and the file is opened again the narrowed way, as before; from
 * then on every open is narrowed from the start
 * (`isLocatorExpectedToAnswer`).
 */
async function openVerified(file: ResolvedFile): Promise<OpenFile> {
  if (nodeFs === null) nodeFs = await import("node:fs");
  if (isLocatorExpectedToAnswer()) {
    const direct = openDirect(file);
    let location: string | null;
    try {
      location = await locateFd(direct.fd);
    } catch (error) {
      closeSync(direct.fd);
      throw error;
    }
    if (location !== null) {
      if (location === file.realPath) return direct;
      closeSync(direct.fd);
      // `""`: the trusted part did not answer in time (fail closed), which says nothing of the
      // file; any other path: the kernel placed it elsewhere.
      throw location === "" ? notCheckedNow(file) : changedAfterCheck(file);
    }
    closeSync(direct.fd);
  }
  return await openNarrowed(file);
}

/**
 * The cause of a read refused because its descriptor's location could not be
 * checked now (the trusted part did not answer in time, e.g. on a loaded
 * machine): nothing is known to have changed, so asking again may read it.
 */
export class LocationUnansweredError extends Error {
  override readonly name = "LocationUnansweredError";
}

function notCheckedNow(file: ResolvedFile): PathRefusedError {
  return new PathRefusedError(
    "not-a-file",
    `File ${quotePath(file.relPath)} could not be checked now`,
    { cause: new LocationUnansweredError("the descriptor location check did not answer") },
  );
}

function changedAfterCheck(file: ResolvedFile, cause?: unknown): PathRefusedError {
  return new PathRefusedError(
    "not-a-file",
    `File ${quotePath(file.relPath)} changed after it was checked`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Opens the file's real path with `O_NOFOLLOW | O_NONBLOCK` and checks the
 * handle is the regular file (device and inode) that was resolved. The
 * caller must check the descriptor's location before reading.
 */
function openDirect(file: ResolvedFile): OpenFile {
  const fd = openFlagged(file, (cause) => changedAfterCheck(file, cause));
  try {
    const info = fs().fstatSync(fd);
    if (!info.isFile() || !isSameFile({ dev: info.dev, ino: info.ino }, file.dev, file.ino)) {
      throw changedAfterCheck(file);
    }
    return { fd, sizeBytes: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Opens a real path with the gate's flags; maps failures to refusals. */
function openFlagged(file: ResolvedFile, changed: (cause?: unknown) => PathRefusedError): number {
  return openFlaggedPath(file.realPath, quotePath(file.relPath), changed);
}

/** Opens a path with the gate's flags; maps failures to refusals quoting `quoted` only. */
function openFlaggedPath(
  realPath: string,
  quoted: string,
  changed: (cause?: unknown) => Error,
): number {
  try {
    const { constants } = fs();
    return openWithFlags(
      realPath,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new PathRefusedError("not-found", `File ${quoted} does not exist`, { cause: error });
    }
    if (code === "ELOOP") throw changed(error);
    throw new PathRefusedError("not-found", `File ${quoted} cannot be read`, { cause: error });
  }
}

/**
 * {@linkcode openBeneath} (the narrowing walk around the open), then the
 * location check where the locator can answer after all. Where it cannot
 * (null: no `/proc`, or a real path longer than the kernel names), the
 * checked path must still be its own real path after the open: the walk
 * starts at the skill folder, and the sync gate may have resolved the file
 * below a folder remembered as real without a `realpath` of the whole path
 * (`realPathBeneath` in `path_gate.ts`), so an ancestor of the skill folder
 * swapped for a symlink since is caught here and nowhere else (review r1).
 */
async function openNarrowed(file: ResolvedFile): Promise<OpenFile> {
  const opened = openBeneath(file);
  const fd = opened.fd;
  try {
    const location = await locateFd(fd);
    if (location !== null && location !== file.realPath) throw changedAfterCheck(file);
    if (location === null) confirmRealPath(file);
    return opened;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Refuses unless the file's checked path is, now, its own real path (no symlink on the way). */
function confirmRealPath(file: ResolvedFile): void {
  let realPath: string;
  try {
    realPath = Deno.realPathSync(file.realPath);
  } catch (error) {
    throw changedAfterCheck(file, error);
  }
  if (realPath !== file.realPath) throw changedAfterCheck(file);
}

/** An open descriptor and the size its handle reported. */
interface OpenFile {
  readonly fd: number;
  /** The size from `fstat` of the open handle, in bytes. */
  readonly sizeBytes: number;
}

/** One folder on the way to the file, and its identity before the open. */
interface FolderStep {
  readonly path: string;
  readonly dev: number;
  readonly ino: number | null;
}

/**
 * Opens the file with `O_NOFOLLOW | O_NONBLOCK` after checking that every
 * folder on its real path is a folder, and checks the same folders (and the
 * handle's identity) again after the open. Synchronous on purpose: nothing
 * else in the worker runs between the checks and the open.
 */
function openBeneath(file: ResolvedFile): OpenFile {
  const quoted = quotePath(file.relPath);
  const changed = (cause?: unknown) =>
    new PathRefusedError(
      "not-a-file",
      `File ${quoted} changed after it was checked`,
      cause === undefined ? undefined : { cause },
    );
  const folders: string[] = [file.skillRealDir];
  for (const segment of file.realSegments.slice(0, -1)) {
    folders.push(`${folders.at(-1)}/${segment}`);
  }
  const lookAtFolders = (): FolderStep[] =>
    folders.map((path) => {
      const info = Deno.lstatSync(path);
      if (!info.isDirectory) throw changed();
      return { path, dev: info.dev, ino: info.ino };
    });
  let before: FolderStep[];
  try {
    before = lookAtFolders();
  } catch (error) {
    throw asRefusal(error, quoted, changed);
  }
  const skillFolder = before[0];
  if (skillFolder === undefined || !isSameFile(skillFolder, file.skillDev, file.skillIno)) {
    throw changed();
  }
  const fd = openFlagged(file, changed);
  try {
    const info = fs().fstatSync(fd);
    if (!info.isFile() || !isSameFile({ dev: info.dev, ino: info.ino }, file.dev, file.ino)) {
      throw changed();
    }
    let after: FolderStep[];
    try {
      after = lookAtFolders();
    } catch (error) {
      throw asRefusal(error, quoted, changed);
    }
    const isUnchanged = after.every((step, index) => {
      const earlier = before[index];
      return earlier !== undefined && isSameFile(step, earlier.dev, earlier.ino);
    });
    if (!isUnchanged) throw changed();
    return { fd, sizeBytes: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function asRefusal(
  error: unknown,
  quoted: string,
  changed: (cause?: unknown) => PathRefusedError,
): PathRefusedError {
  if (error instanceof PathRefusedError) return error;
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
    return new PathRefusedError("not-found", `File ${quoted} does not exist`, { cause: error });
  }
  return changed(error);
}

function isSameFile(
  info: { dev: number; ino: number | null },
  dev: number,
  ino: number | null,
): boolean {
  return info.dev === dev && (ino === null || info.ino === ino);
}

/**
 * Reads up to `length` bytes at `position`; returns the filled part of one
 * buffer. With `sizeBytes` (the open handle's `fstat` size), a read that
 * comes short exactly at that size ends the loop: the bytes of the version
 * the handle reported are all there, and asking again only to be told 0
 * bytes cost one more `pread` per file (issue 13: 40,000 at 10,000 skills).
 * A file grown since that `fstat` fills the request instead (the extra byte
 * of `readBounded` is read, so the cut is still reported); a read short
 * anywhere else goes on as before.
 */
function readInto(
  fd: number,
  length: number,
  position: number,
  sizeBytes?: number,
): Uint8Array {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = fs().readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
    if (position + filled === sizeBytes) break;
  }
  return buffer.subarray(0, filled);
}

/**
 * Whether a gated read failed only for a moment's reason, nothing known about
 * the file changed: no descriptor was free ({@linkcode isDescriptorShortage})
 * or the descriptor's location check did not answer in time
 * ({@linkcode LocationUnansweredError}). Asking again may read it.
 *
 * @param error Anything thrown by a gated read.
 * @returns True for those two causes (on the error or its causes, four levels at most).
 *
 * Needs no Deno permission.
 */
export function isMomentaryReadFailure(error: unknown): boolean {
  if (isDescriptorShortage(error)) return true;
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; depth++) {
    if (at instanceof LocationUnansweredError) return true;
    at = at.cause;
  }
  return false;
}
