/**
 * One problem as one line of terminal text, in the form editors and CI logs
 * recognise: `path:line:column: severity reason: detail`.
 *
 * @module
 */

import { relative } from "node:path";
import type { Problem } from "../skills/problem.ts";
import { oneLine, oneLineName } from "./terminal_text.ts";

/**
 * A problem as {@linkcode problemLine} reads it: a {@linkcode Problem}, or the
 * same fields as they come back from JSON (an absent place may be `undefined`).
 */
export type ProblemView = Omit<Problem, "line" | "column"> & {
  readonly line?: number | undefined;
  readonly column?: number | undefined;
};

/** Options of {@linkcode problemLine}. */
export interface ProblemLineOptions {
  /** Absolute working directory; a path under it is printed relative to it. @default none */
  readonly cwd?: string;
  /**
   * Whether a frontmatter finding without a place (a missing field) points at
   * line 1, column 1, where the frontmatter opens. @default false
   */
  readonly isFrontmatterLocated?: boolean;
}

/**
 * Where a problem is: its path, plus `:line:column` (or `:line`) when known.
 *
 * @param problem The problem.
 * @param options Working directory and whether to place missing fields.
 * @returns E.g. `pdf/SKILL.md:3:14`, or `pdf` for a folder.
 */
export function problemLocation(problem: ProblemView, options: ProblemLineOptions = {}): string {
  let line = problem.line;
  let column = problem.column;
  if (
    line === undefined && options.isFrontmatterLocated === true &&
    problem.reason === "invalid-frontmatter"
  ) {
    line = 1;
    column = 1;
  }
  const path = displayPath(problem.path, options.cwd);
  if (line === undefined) return path;
  return column === undefined ? `${path}:${line}` : `${path}:${line}:${column}`;
}

/**
 * Renders `location: severity reason: detail` on one line, control
 * characters escaped.
 *
 * @param problem The problem.
 * @param options Working directory and whether to place missing fields.
 * @returns One line without a trailing newline.
 */
export function problemLine(problem: ProblemView, options: ProblemLineOptions = {}): string {
  // The location is a path: exact, a line break escaped. The detail is prose, flattened.
  return `${oneLineName(problemLocation(problem, options))}: ` +
    oneLine(`${problem.severity} ${problem.reason}: ${problem.detail}`);
}

/**
 * A path relative to `cwd` when it lies under it, else unchanged.
 *
 * @param path An absolute path.
 * @param cwd The working directory, or undefined to keep paths absolute.
 * @returns The path to print.
 */
export function displayPath(path: string, cwd: string | undefined): string {
  if (cwd === undefined) return path;
  const rel = relative(cwd, path);
  if (rel === "") return ".";
  return rel === ".." || rel.startsWith("../") || rel.startsWith("/") ? path : rel;
}
