/**
 * Whether a path is a program the runner could start: the one file-system
 * check of interpreters and directly executed scripts, kept in the runner's
 * folder with the one module that spawns.
 *
 * @module
 */

/**
 * Whether a path is an executable regular file.
 *
 * @param path An absolute path.
 * @returns True when `stat` (following symlinks) shows a regular file with
 *   an execute bit; false when it is missing, unreadable or anything else.
 *
 * Requires `--allow-read` on the path.
 */
export function isExecutableFile(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0) & 0o111) !== 0;
  } catch {
    return false;
  }
}
