/**
 * The one way the trusted part replaces an owner file (`overrides.json`):
 * the whole text to a fresh temporary file in the same folder, then a rename
 * over the old one, so a running skillgate (or the owner's editor) never
 * reads half a file.
 *
 * @module
 */

import { dirname } from "node:path";

/**
 * Writes `text` to a temporary file beside `path` (mode 0600, created new),
 * then renames it over `path`. The folder is created when missing.
 *
 * @param path The file to replace.
 * @param text Its new content.
 * @throws {Deno.errors.PermissionDenied} (or another `Deno.errors` class) when
 *   the folder cannot be written; the temporary file is removed first.
 *
 * Requires `--allow-write` on the file's folder (the trusted part only).
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
