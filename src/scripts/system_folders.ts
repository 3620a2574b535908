/**
 * The system folders skillgate looks in for the isolation launchers
 * (`unshare`, `bwrap`), and how a program is found in folders: a module of
 * its own so the trusted part's start-up can predict the worker's run
 * permission without loading the isolation or interpreter code (issue 13).
 *
 * @module
 */

import { isAbsolute, join } from "node:path";
import { isExecutableFile } from "./runner/executable.ts";

/** Folders searched for `unshare` (a system tool; PATH is not consulted). */
export const SYSTEM_FOLDERS: readonly string[] = Object.freeze([
  "/usr/bin",
  "/bin",
  "/usr/sbin",
  "/sbin",
]);

/**
 * Finds a program by name in a list of folders: the first absolute folder
 * holding an executable regular file of that name. The path is returned as
 * found (not symlink-resolved).
 *
 * @param name A bare program name, e.g. `unshare`.
 * @param folders Folders to search, in order; relative ones are skipped.
 * @param isExecutable The executable check. @default `isExecutableFile` (runner/executable.ts)
 * @returns The absolute path, or undefined when no folder holds it.
 *
 * Requires `--allow-read` on the folders.
 */
export function findProgram(
  name: string,
  folders: readonly string[],
  isExecutable: (path: string) => boolean = isExecutableFile,
): string | undefined {
  return folders.filter((folder) => isAbsolute(folder)).map((folder) => join(folder, name))
    .find((path) => isExecutable(path));
}
