/**
 * Start-up checks of the configured roots, run by the trusted part before the
 * worker starts, so a typo in a path fails loudly instead of serving nothing.
 *
 * @module
 */

import { basename } from "node:path";
import type { Root } from "../skills/skill.ts";
import { commandMeant } from "./command_typo.ts";
import type { RootPaths } from "../sandbox/worker_permissions.ts";

/** A root that cannot be served, with a message saying what to do. */
export interface RootFailure {
  readonly path: string;
  readonly message: string;
}

/**
 * Stats and realpaths each root. Requires `--allow-read` on the roots.
 *
 * @param roots The configured roots.
 * @param args The command-line arguments as typed: a missing root typed first,
 *   as a bare name within two edits of a command, is reported as that
 *   mistyped command. @default Deno.args
 * @returns The roots with their real paths, and a failure per root that is
 *   missing, unreadable or not a folder.
 */
export async function checkRoots(
  roots: readonly Root[],
  args: readonly string[] = Deno.args,
): Promise<{ paths: RootPaths[]; failures: RootFailure[] }> {
  const paths: RootPaths[] = [];
  const failures: RootFailure[] = [];
  for (const root of roots) {
    try {
      const info = await Deno.stat(root.path);
      if (!info.isDirectory) {
        failures.push({
          path: root.path,
          message: `Skill root "${root.path}" is not a folder; pass the folder that holds ` +
            "your skills (or a skill folder itself)",
        });
        continue;
      }
      paths.push({ path: root.path, realPath: await Deno.realPath(root.path) });
    } catch (error) {
      const typed = basename(root.path);
      const meant = error instanceof Deno.errors.NotFound && root.from === "argument" &&
          args[0] === typed
        ? commandMeant(typed)
        : null;
      if (meant !== null) {
        failures.push({
          path: root.path,
          message: `unknown command "${typed}": did you mean "${meant}"? Run: skillgate ${meant} ` +
            `... (skillgate --help lists the commands; a skill folder named "${typed}" is ` +
            `passed as ./${typed} once it exists)`,
        });
        continue;
      }
      const why = error instanceof Deno.errors.NotFound
        ? "does not exist"
        : error instanceof Deno.errors.PermissionDenied
        ? "cannot be read (permission denied)"
        : "cannot be read";
      failures.push({
        path: root.path,
        message: `Skill root "${root.path}" ${why} (from ${root.from}); check the path`,
      });
    }
  }
  return { paths, failures };
}
