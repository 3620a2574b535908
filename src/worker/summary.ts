/**
 * The start-up summary the worker sends to the trusted part for its banner.
 *
 * @module
 */

import type { Catalog } from "../skills/skill.ts";

/** Problem lines the banner shows at most. */
const MAX_BANNER_PROBLEMS = 10;

/**
 * Counts skills and problems and renders the first few problems as lines.
 *
 * @param catalog The catalog just built.
 * @returns Counts and up to 10 lines such as `error duplicate-name: /r/a ...`.
 */
export function summariseProblems(catalog: Catalog): {
  skillCount: number;
  errorCount: number;
  warningCount: number;
  problemLines: string[];
} {
  const errorCount = catalog.problems.filter((problem) => problem.severity === "error").length;
  return {
    skillCount: catalog.skills.length,
    errorCount,
    warningCount: catalog.problems.length - errorCount,
    problemLines: catalog.problems.slice(0, MAX_BANNER_PROBLEMS).map((problem) =>
      `${problem.severity} ${problem.reason}: ${problem.path}: ${problem.detail}`
    ),
  };
}
