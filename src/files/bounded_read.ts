/**
 * Bounded reads of files the gate resolved. A file is opened read-only with
 * `O_NOFOLLOW | O_NONBLOCK` (through `node:fs`: `Deno.open` takes no such
 * flags), so a file swapped for a symlink or a FIFO after it was resolved is
 * neither followed nor waited on; the open handle is then checked to be the
 * same regular file (device and inode) that was resolved. Buffers are sized
 * from the cap and the file size, never from the file alone.
 *
 * @module
 */

import { constants, promises as fs } from "node:fs";
import { isResolvedFile, PathRefusedError, quotePath, type ResolvedFile } from "./path_gate.ts";

type FileHandle = fs.FileHandle;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Options of {@linkcode readBounded}. */
export interface ReadBoundedOptions {
  /** Byte offset to start at; at most the file size. @default 0 */
  readonly offsetBytes?: number;
  /** Most bytes returned; a non-negative integer. */
  readonly maxBytes: number;
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
  const handle = await openChecked(file);
  try {
    const sizeBytes = (await handle.stat()).size;
    if (offsetBytes > sizeBytes) {
      throw new RangeError(
        `Offset ${offsetBytes} is past the end of ${quotePath(file.relPath)} (${sizeBytes} bytes)`,
      );
    }
    const limit = Math.min(maxBytes, sizeBytes - offsetBytes);
    const buffer = await readInto(handle, limit + 1, offsetBytes);
    const isTruncated = buffer.length > limit;
    const bytes = isTruncated ? buffer.subarray(0, limit) : buffer;
    return { bytes, offsetBytes, sizeBytes, isTruncated };
  } finally {
    await handle.close();
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
  const handle = await openChecked(file);
  try {
    const sizeBytes = (await handle.stat()).size;
    if (sizeBytes > maxBytes) throw new FileTooLargeError(file.relPath, sizeBytes, maxBytes);
    const buffer = await readInto(handle, sizeBytes, 0);
    return buffer;
  } finally {
    await handle.close();
  }
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

/** Opens without following a final symlink or blocking on a FIFO, then verifies identity. */
async function openChecked(file: ResolvedFile): Promise<FileHandle> {
  const quoted = quotePath(file.relPath);
  let handle: FileHandle;
  try {
    handle = await fs.open(file.realPath, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ELOOP") {
      throw new PathRefusedError("not-a-file", `File ${quoted} changed after it was checked`, {
        cause: error,
      });
    }
    const message = code === "ENOENT" || code === "ENOTDIR"
      ? `File ${quoted} does not exist`
      : `File ${quoted} cannot be read`;
    throw new PathRefusedError("not-found", message, { cause: error });
  }
  try {
    const info = await handle.stat();
    const isSame = info.dev === file.dev && (file.ino === null || info.ino === file.ino);
    if (!info.isFile() || !isSame) {
      throw new PathRefusedError("not-a-file", `File ${quoted} changed after it was checked`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads up to `length` bytes at `position`; returns the filled part of one buffer. */
async function readInto(handle: FileHandle, length: number, position: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
