/**
 * Small builders shared by discovery and loading.
 *
 * @module
 */

import type { Problem } from "./problem.ts";

/**
 * Builds a problem.
 *
 * @param path The lexical path the problem is about.
 * @param reason The reason.
 * @param severity The severity.
 * @param detail What is wrong and what to do.
 * @returns The problem.
 */
export function problem(
  path: string,
  reason: Problem["reason"],
  severity: Problem["severity"],
  detail: string,
): Problem {
  return { path, reason, severity, detail };
}

/**
 * A short, path-free name for a caught error (e.g. `NotFound`, `PermissionDenied`).
 *
 * @param error What was thrown.
 * @returns The error's class name, or `Error`.
 */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

/**
 * The problem for a symlink whose target leaves the folder it must stay in.
 *
 * @param lexical The link's lexical path.
 * @param within What it must stay in, for the message (`its root`, `the skill folder`).
 * @param severity `error` when it keeps a skill or folder out, else `warning`.
 * @returns The `symlink-escape` problem.
 */
export function escapeProblem(
  lexical: string,
  within: string,
  severity: Problem["severity"],
): Problem {
  return problem(
    lexical,
    "symlink-escape",
    severity,
    `Symlink "${lexical}" points outside ${within}; it is not followed`,
  );
}
