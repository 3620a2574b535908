/**
 * The one way the trusted part replaces an owner file (`overrides.json`):
 * the whole text to a fresh temporary file in the same folder, then a rename
 * over the old one, so a running skillgate (or the owner's editor) never
 * reads half a file.
 *
 * @module
 */

import { dirname } from "node:path";

/** Options of {@linkcode writeAtomically}. */
export interface WriteAtomicallyOptions {
  /**
   * Checked after the temporary file is written, just before the rename:
   * false leaves `path` as it is (someone changed it since the caller read
   * it, so the caller's text would overwrite that change). @default none
   */
  readonly isStillCurrent?: () => Promise<boolean>;
}

/**
 * Writes `text` to a temporary file beside `path` (mode 0600, created new),
 * then renames it over `path`. The folder is created when missing.
 *
 * @param path The file to replace.
 * @param text Its new content.
 * @param options A last check before the rename.
 * @returns True when written; false when `isStillCurrent` said no (nothing
 *   changed, the temporary file is removed).
 * @throws {Deno.errors.PermissionDenied} (or another `Deno.errors` class) when
 *   the folder cannot be written; the temporary file is removed first.
 *
 * Requires `--allow-write` on the file's folder (the trusted part only).
 */
export async function writeAtomically(
  path: string,
  text: string,
  options: WriteAtomicallyOptions = {},
): Promise<boolean> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
    // The check comes after the slow part (the write), so the window left
    // between it and the rename is as short as it can be without a lock.
    if (options.isStillCurrent !== undefined && !(await options.isStillCurrent())) {
      await Deno.remove(temporary);
      return false;
    }
    await Deno.rename(temporary, path);
    return true;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
