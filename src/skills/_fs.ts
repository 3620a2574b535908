/**
 * Directory reading by path: the code-unit order every listing uses, and
 * the path-based `readdir` that discovery and the file listing fall back to
 * only where no descriptor can be located (no `/proc`; see
 * `_read_folder.ts` and `_list_files.ts`), and the start-up estimate uses to
 * count sub-folders.
 *
 * @module
 */

/**
 * Orders strings by UTF-16 code units, the order every listing uses.
 *
 * @param a One string.
 * @param b The other.
 * @returns Negative, zero or positive, as for `Array.prototype.sort`.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Reads a folder's entries, sorted by name in code-unit order. Synchronous:
 * one `readdir` costs about half as much as its async form under Deno, and
 * the catalog's callers yield to the event loop between skills (see
 * `_time_slice.ts`), so a request never waits for a whole walk.
 *
 * @param path The folder's lexical path.
 * @returns The entries.
 * @throws {Deno.errors.NotFound} When the folder does not exist (and other
 *   `Deno.readDirSync` errors).
 *
 * Requires `--allow-read` on the folder.
 */
export function readSortedEntries(path: string): Deno.DirEntry[] {
  const entries = Array.from(Deno.readDirSync(path));
  return entries.sort((a, b) => compareCodeUnits(a.name, b.name));
}
