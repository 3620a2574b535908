/**
 * The start-up summary the worker sends to the trusted part for its banner.
 *
 * @module
 */

import { problemLine } from "../cli/problem_line.ts";
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
 * @returns Counts and up to 10 lines, each as `problemLine()` renders it for
 *   `skillgate list` (`/r/a: error duplicate-name: ...`).
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
    // Exactly as `skillgate list` and `validate` print them (n9: a path holding a line break was
    // flattened here and escaped there): `path: severity reason: detail`, the path exact.
    problemLines: catalog.problems.slice(0, MAX_BANNER_PROBLEMS).map((problem) =>
      problemLine(problem, { isFrontmatterLocated: true })
    ),
  };
}
