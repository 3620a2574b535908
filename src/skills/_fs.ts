/**
 * Directory reading shared by discovery and file listing.
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
 * Reads a folder's entries, sorted by name in code-unit order.
 *
 * @param path The folder's lexical path.
 * @returns The entries.
 * @throws {Deno.errors.NotFound} When the folder does not exist (and other
 *   `Deno.readDir` errors).
 *
 * Requires `--allow-read` on the folder.
 */
export async function readSortedEntries(path: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(path)) entries.push(entry);
  return entries.sort((a, b) => compareCodeUnits(a.name, b.name));
}
