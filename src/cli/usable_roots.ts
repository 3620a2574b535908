/**
 * The start-up root check shared by `list`, `permissions` and `validate`:
 * the same check `serve` runs, with the same exit code when a root cannot be
 * used.
 *
 * @module
 */

import { checkRoots } from "../config/root_check.ts";
import type { RootPaths } from "../sandbox/worker_permissions.ts";
import type { Root } from "../skills/skill.ts";
import type { CommandIo } from "./command_io.ts";

/**
 * Checks the roots and prints one line per unusable root to standard error.
 * Requires `--allow-read` on the roots.
 *
 * @param roots The configured roots.
 * @param io Where failures are printed.
 * @returns The roots with their real paths, or null when any root is
 *   missing, unreadable or not a folder (the caller exits 2).
 */
export async function usableRoots(
  roots: readonly Root[],
  io: Pick<CommandIo, "writeErr">,
): Promise<RootPaths[] | null> {
  const { paths, failures } = await checkRoots(roots);
  if (failures.length === 0) return paths;
  await io.writeErr(failures.map((failure) => `skillgate: ${failure.message}\n`).join(""));
  return null;
}
