/**
 * The fixed interpreter allowlist, looked up once at start-up (in the trusted
 * part) to absolute paths as found on PATH. Paths are NOT symlink-resolved:
 * a virtual environment's `bin/python3` is a symlink whose literal path is
 * what makes it that environment. The same literal path is what the runner
 * spawns and what goes on the worker's run permission.
 *
 * @module
 */

import { INTERPRETER_NAMES, type InterpreterName } from "./declaration.ts";
import { isExecutableFile } from "./runner/executable.ts";
import { findProgram } from "./system_folders.ts";

// In system_folders.ts (few imports: the trusted part's start-up loads it before the rest).
export { findProgram };

/** One interpreter: where it is, or why it cannot be used here. */
export type InterpreterEntry =
  | {
    readonly name: InterpreterName;
    readonly available: true;
    /** Absolute literal path found on PATH; null for `exec` (the script runs itself). */
    readonly path: string | null;
  }
  | { readonly name: InterpreterName; readonly available: false; readonly reason: string };

/** Every allowlisted interpreter by name. */
export type InterpreterTable = Readonly<Record<InterpreterName, InterpreterEntry>>;

/** Options of {@linkcode lookUpInterpreters}. */
export interface LookUpOptions {
  /**
   * Whether a path is an executable regular file (following symlinks).
   * @default `isExecutableFile` (a stat of the file type and any execute bit)
   */
  readonly isExecutable?: (path: string) => boolean;
}

/**
 * Finds each allowlisted interpreter on PATH: the first absolute PATH entry
 * holding an executable regular file of that name wins (relative and empty
 * entries are skipped, as a start-up directory must not decide what runs).
 * `exec` is always available: it runs the script file itself.
 *
 * @param pathValue The PATH value skillgate started with (undefined when unset).
 * @param options An injectable executable check, for tests.
 * @returns The table, frozen; a missing interpreter says why.
 *
 * Requires `--allow-read` on the PATH folders (the trusted part has it).
 *
 * Source: issue 4, "Interpreters".
 */
export function lookUpInterpreters(
  pathValue: string | undefined,
  options: LookUpOptions = {},
): InterpreterTable {
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const folders = (pathValue ?? "").split(":"); // findProgram() skips relative entries
  const table = {} as Record<InterpreterName, InterpreterEntry>;
  for (const name of INTERPRETER_NAMES) {
    if (name === "exec") {
      table[name] = Object.freeze({ name, available: true, path: null });
      continue;
    }
    const found = findProgram(name, folders, isExecutable);
    table[name] = Object.freeze(
      found === undefined
        ? {
          name,
          available: false,
          reason: `"${name}" was not found on PATH when skillgate started; install it and ` +
            "restart skillgate",
        }
        : { name, available: true, path: found },
    );
  }
  return Object.freeze(table);
}
