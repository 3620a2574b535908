/**
 * What a client may learn about the owner's grant (`MCP_SKILL_RUN`): where
 * the grant in force came from and what it means, never its rows. A grant
 * problem's detail names the rows' skills, scripts and environment names
 * (and a JSON parse error quotes the value itself), so a client sees a
 * generic sentence instead; the owner reads the full detail with
 * `skillgate list` in their own terminal.
 *
 * @module
 */

import type { ScriptPlan } from "../../scripts/plan.ts";
import type { Problem } from "../../skills/problem.ts";

/** A client's detail for a row of the grant that grants nothing. */
export const REDACTED_GRANT_ROW_DETAIL =
  "A row of the owner's grant (MCP_SKILL_RUN) grants nothing; the owner sees why with " +
  "`skillgate list`";

/** A client's detail for a grant that could not be read at all. */
export const REDACTED_GRANT_VALUE_DETAIL =
  "The owner's grant (MCP_SKILL_RUN) could not be read, so no script may run; the owner sees " +
  "why with `skillgate list`";

/**
 * The problems as a client may see them: every `grant` problem's detail is
 * replaced by a generic sentence (so the count and severity stay, the rows,
 * skills, scripts and environment names do not); other problems pass
 * unchanged. Pure.
 *
 * @param problems The problems of a snapshot (the catalog's and the plan's).
 * @param grant The plan's grant (`error` set means the whole value was
 *   unreadable, in which case it is the only grant problem).
 * @returns A new list in the same order.
 *
 * Source: house style, "client-facing errors never echo allow-lists or secrets".
 */
export function redactGrantProblems(
  problems: readonly Problem[],
  grant: ScriptPlan["grant"] | undefined,
): Problem[] {
  // A placeholder's error names only variables, never a row or a value: it is shown as is.
  if (grant?.from === "unsubstituted") return [...problems];
  const detail = grant?.error === undefined
    ? REDACTED_GRANT_ROW_DETAIL
    : REDACTED_GRANT_VALUE_DETAIL;
  return problems.map((problem) => problem.reason === "grant" ? { ...problem, detail } : problem);
}

/**
 * The grant summary as a client may see it: `from` and `note` as they are
 * (they name no row), `error` replaced by a generic sentence. Pure.
 *
 * @param grant The plan's grant.
 * @returns A new object.
 *
 * Source: house style, "client-facing errors never echo allow-lists or secrets".
 */
export function redactGrantStatus(grant: ScriptPlan["grant"]): ScriptPlan["grant"] {
  const error = grant.from === "unsubstituted" || grant.from === "blank"
    ? grant.error
    : REDACTED_GRANT_VALUE_DETAIL;
  return {
    from: grant.from,
    ...(grant.note === undefined ? {} : { note: grant.note }),
    ...(grant.error === undefined ? {} : { error }),
  };
}
