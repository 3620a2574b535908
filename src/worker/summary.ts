/**
 * The start-up summary the worker sends to the trusted part for its banner.
 *
 * @module
 */

import type { CatalogStore } from "../skills/catalog_store.ts";

/** Problem lines the banner shows at most. */
const MAX_BANNER_PROBLEMS = 10;

/**
 * Counts the skills served and the problems, and renders the first few
 * problems as lines. Counts what clients see: the store's current snapshot,
 * with `overrides.json` applied (a disabled skill is not counted; the
 * owner's problems are), so the banner and start-up line agree with
 * `skillgate list` and `skill_list`.
 *
 * @param store The catalog store being served.
 * @returns Counts and up to 10 lines such as `error duplicate-name: /r/a ...`.
 */
export function summariseProblems(store: Pick<CatalogStore, "current">): {
  skillCount: number;
  errorCount: number;
  warningCount: number;
  problemLines: string[];
} {
  const catalog = store.current();
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
