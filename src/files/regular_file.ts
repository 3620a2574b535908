/**
 * Reads a file the owner names (a lock file, a token file) without ever
 * waiting on it: opened `O_RDONLY|O_NONBLOCK`, so a FIFO (or a
 * device) at the path cannot hold the open, then judged by what was opened
 * (`fstat`), never by an earlier `stat` a swap could outrun (review r14, H9:
 * a FIFO at the lock file's path hung start-up). Deno's own open has no
 * `O_NONBLOCK`, so this uses `node:fs` (loaded on first use).
 *
 * @module
 */

/** What was opened, as `fstat` saw it. */
export interface OpenedFileInfo {
  readonly isFile: boolean;
  /** "a folder", "a FIFO (named pipe)", "a socket", "a device", "a regular file". */
  readonly kind: string;
  readonly dev: number;
  readonly ino: number;
  readonly uid: number;
  readonly mode: number;
  readonly size: number;
}

/** The outcome of {@linkcode readRegularFile}. */
export type RegularFileRead =
  | { readonly kind: "read"; readonly bytes: Uint8Array; readonly info: OpenedFileInfo }
  | { readonly kind: "missing" }
  | { readonly kind: "not-regular"; readonly info: OpenedFileInfo }
  | { readonly kind: "too-large"; readonly info: OpenedFileInfo };

/**
 * Reads a regular file whole, up to `maxBytes`, without blocking on a FIFO.
 *
 * @param path The file's path (followed, as an open follows it).
 * @param maxBytes The most bytes read; a larger file answers "too-large".
 * @returns The bytes and what was opened; "missing" when nothing is there;
 *   "not-regular" for a folder, FIFO, socket or device (nothing read).
 * @throws Error (from `node:fs`, with `code`) when it cannot be opened or
 *   read for another reason (permission denied, a loop of links).
 *
 * Requires `--allow-read` on `path`.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<RegularFileRead> {
  const { closeSync, constants, fstatSync, openSync, readSync } = await import("node:fs");
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return { kind: "missing" };
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const info: OpenedFileInfo = {
      isFile: stats.isFile(),
      kind: stats.isFile()
        ? "a regular file"
        : stats.isDirectory()
        ? "a folder"
        : stats.isFIFO()
        ? "a FIFO (named pipe)"
        : stats.isSocket()
        ? "a socket"
        : "a device",
      dev: stats.dev,
      ino: stats.ino,
      uid: stats.uid,
      mode: stats.mode,
      size: stats.size,
    };
    if (!info.isFile) return { kind: "not-regular", info };
    if (info.size > maxBytes) return { kind: "too-large", info };
    const buffer = new Uint8Array(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    if (filled > maxBytes) return { kind: "too-large", info };
    return { kind: "read", bytes: buffer.slice(0, filled), info };
  } finally {
    closeSync(fd);
  }
}
