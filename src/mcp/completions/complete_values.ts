/**
 * Completion values by case-insensitive substring, as `completion/complete`
 * returns them.
 *
 * @module
 */

import { MAX_COMPLETION_VALUES } from "../../caps.ts";

/** The `completion` object of a `completion/complete` result. */
export interface Completion {
  /** At most {@linkcode MAX_COMPLETION_VALUES} values. */
  readonly values: string[];
  /** How many candidates match in all. */
  readonly total: number;
  /** Whether more match than `values` holds. */
  readonly hasMore: boolean;
}

/**
 * Completes `typed` against candidates by case-insensitive substring. Values
 * that start with `typed` come first; otherwise the candidates' order is kept.
 *
 * @param candidates The values to choose from, in the order to offer them.
 * @param typed What the user typed so far (may be empty: everything matches).
 * @param options `maxValues`: values returned at most (default and ceiling
 *   {@linkcode MAX_COMPLETION_VALUES}, the MCP limit).
 * @returns `{values, total, hasMore}`.
 *
 * Source: MCP 2025-11-25, "Completion" (at most 100 values; `total`,
 * `hasMore`).
 */
export function completeBySubstring(
  candidates: readonly string[],
  typed: string,
  options: { maxValues?: number } = {},
): Completion {
  const maxValues = Math.min(options.maxValues ?? MAX_COMPLETION_VALUES, MAX_COMPLETION_VALUES);
  const needle = typed.toLowerCase();
  const prefixed: string[] = [];
  const inner: string[] = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    if (lower.startsWith(needle)) prefixed.push(candidate);
    else if (lower.includes(needle)) inner.push(candidate);
  }
  const total = prefixed.length + inner.length;
  const values = [...prefixed, ...inner].slice(0, Math.max(0, maxValues));
  return { values, total, hasMore: total > values.length };
}
