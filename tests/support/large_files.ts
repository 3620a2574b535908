/**
 * Files over 1 MiB for tests, written at test time into a temporary copy:
 * the fixture corpus never commits one (`tests/support/fixture_corpus_test.ts`
 * checks it).
 *
 * @module
 */

/** Files at or above this size are generated, never committed: 1 MiB. */
export const LARGE_FILE_BYTES = 1024 * 1024;

/**
 * Writes a text file of `bytes` bytes cycling through `a` to `z`.
 *
 * @param path Where to write it (inside a temporary folder).
 * @param bytes Its size in bytes.
 * @returns The bytes written, for comparing with what a server returns.
 *
 * Requires `--allow-write`.
 */
export async function writeAlphabetFile(path: string, bytes: number): Promise<Uint8Array> {
  const content = new Uint8Array(bytes).map((_, index) => 97 + (index % 26));
  await Deno.writeFile(path, content);
  return content;
}

/**
 * Writes a sparse file of `bytes` zero bytes (no disk blocks used).
 *
 * @param path Where to write it (inside a temporary folder).
 * @param bytes Its size in bytes.
 *
 * Requires `--allow-write`.
 */
export async function writeSparseFile(path: string, bytes: number): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true });
  await file.truncate(bytes);
}
