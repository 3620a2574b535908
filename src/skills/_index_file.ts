/**
 * The index cache's file doors: read one of its own files whole (only a
 * regular file), and replace one atomically (a uniquely named temporary file,
 * then rename), so processes sharing the folder always see whole files.
 *
 * @module
 */

/** Why a cache file could not be used; each cause is warned about once per process. */
export type IndexFileProblem = "foreign" | "unreadable";

/**
 * Reads a cache file's bytes.
 *
 * @param path The file (inside the cache folder).
 * @returns The bytes; null when it does not exist; or the problem when it is
 *   not a regular file or cannot be read.
 *
 * Requires `--allow-read` on the cache folder.
 */
export function readIndexFile(path: string): Uint8Array | null | IndexFileProblem {
  try {
    if (!Deno.lstatSync(path).isFile) return "foreign";
    return readWhole(path);
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? null : "unreadable";
  }
}

/**
 * Reads a file whole into one buffer sized by its `fstat` (one byte more, so
 * the read that meets the end is the next one; a file that grew meanwhile is
 * still read whole, the buffer doubled). Deno's `readFileSync` took 55-65 ms
 * for the 7.3 MB parse file of a 10,000-skill catalog here, this 13-16 ms,
 * on the warm start's path before discovery (issue 13, s18).
 *
 * @param path The file.
 * @returns Its bytes (a view of the buffer).
 * @throws {Deno.errors.NotFound} When it does not exist; any other open or read error.
 *
 * Requires `--allow-read` on the file.
 */
function readWhole(path: string): Uint8Array {
  const file = Deno.openSync(path, { read: true });
  try {
    let bytes = new Uint8Array(file.statSync().size + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        const larger = new Uint8Array(bytes.length * 2);
        larger.set(bytes);
        bytes = larger;
      }
      const got = file.readSync(bytes.subarray(length));
      if (got === null || got === 0) break;
      length += got;
    }
    return bytes.subarray(0, length);
  } finally {
    file.close();
  }
}

/**
 * Replaces a cache file atomically: writes the bytes to a new temporary
 * file beside it (owner-only, created new), then renames it over the file.
 *
 * @param path The file (inside the cache folder).
 * @param bytes The new content.
 * @throws {Error} When the folder cannot be written (the temporary file is removed).
 *
 * Requires `--allow-read` and `--allow-write` on the cache folder.
 */
export function replaceIndexFile(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    Deno.writeFileSync(temporary, bytes, { createNew: true, mode: 0o600 });
    Deno.renameSync(temporary, path);
  } catch (error) {
    try {
      Deno.removeSync(temporary);
    } catch {
      // Nothing was written, or it is gone already.
    }
    throw error;
  }
}

/**
 * Removes a file the cache no longer uses (the previous format's), if present.
 *
 * @param path The file (inside the cache folder).
 *
 * Requires `--allow-write` on the cache folder.
 */
export function removeStaleIndexFile(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Absent (the usual case) or not ours to remove: either way nothing to do.
  }
}
