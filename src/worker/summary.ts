/**
 * The start-up summary the worker sends to the trusted part for its banner.
 *
 * @module
 */

import { problemLine } from "../cli/problem_line.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { ScriptService } from "../scripts/service.ts";

/** Problem lines the banner shows at most (errors first); the banner states how many it left out. */
export const MAX_BANNER_PROBLEMS = 10;

/**
 * Counts the skills served and the problems, and renders the first few
 * problems as lines. Counts what clients see: the store's current snapshot,
 * with `overrides.json` applied (a disabled skill is not counted; the
 * owner's problems are), and the script plan's problems (`grant`: a row of
 * `MCP_SKILL_RUN` that grants nothing; `environ-unscrubbed`), so the banner
 * and start-up line agree with `skillgate list` and `skill_list` (review
 * hR L1: a bad grant row was counted there and not here).
 *
 * @param store The catalog store being served.
 * @param scripts The script service, when scripts are enabled (its plan for
 *   the snapshot adds the grant problems; computed once per snapshot and
 *   shared with `skill_list`). @default none: the catalog's problems only
 * @returns Counts and at most {@linkcode MAX_BANNER_PROBLEMS} (10) lines,
 *   errors before warnings (each group in the catalog's order, as
 *   `skill_list` picks them), each as `problemLine()` renders it for
 *   `skillgate list` (`/r/a: error duplicate-name: ...`). The lines are the
 *   owner's view (grant details unredacted): the banner is printed only to
 *   the owner's own terminal. `errorCount + warningCount` minus the lines'
 *   length is how many the banner leaves out (it says so).
 */
export function summariseProblems(
  store: Pick<CatalogStore, "current">,
  scripts?: Pick<ScriptService, "plan">,
): {
  skillCount: number;
  errorCount: number;
  warningCount: number;
  problemLines: string[];
} {
  const catalog = store.current();
  const all = scripts === undefined
    ? catalog.problems
    : [...catalog.problems, ...scripts.plan(catalog).problems];
  const errors = all.filter((problem) => problem.severity === "error");
  const warnings = all.filter((problem) => problem.severity !== "error");
  return {
    skillCount: catalog.skills.length,
    errorCount: errors.length,
    warningCount: warnings.length,
    // Exactly as `skillgate list` and `validate` print them (n9: a path holding a line break was
    // flattened here and escaped there): `path: severity reason: detail`, the path exact. Errors
    // first: a skill that is not served must not hide behind warnings (review hR M2).
    problemLines: [...errors, ...warnings].slice(0, MAX_BANNER_PROBLEMS).map((problem) =>
      problemLine(problem, { isFrontmatterLocated: true })
    ),
  };
}
