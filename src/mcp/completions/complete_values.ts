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
 *   {@linkcode MAX_COMPLETION_VALUES}, the MCP limit). `lowerCandidates`:
 *   the candidates already lowercased, parallel to `candidates` (a
 *   snapshot's precomputed index; computed here when absent). The caller
 *   caps `typed` (MAX_COMPLETION_VALUE_CHARS): the work is one substring
 *   test per candidate.
 * @returns `{values, total, hasMore}`.
 *
 * Source: MCP 2025-11-25, "Completion" (at most 100 values; `total`,
 * `hasMore`).
 */
export function completeBySubstring(
  candidates: readonly string[],
  typed: string,
  options: { maxValues?: number; lowerCandidates?: readonly string[] } = {},
): Completion {
  const maxValues = Math.max(
    0,
    Math.min(options.maxValues ?? MAX_COMPLETION_VALUES, MAX_COMPLETION_VALUES),
  );
  const needle = typed.toLowerCase();
  // Only the first maxValues of each kind are kept; the rest are counted.
  const prefixed: string[] = [];
  const inner: string[] = [];
  let total = 0;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as string;
    const lower = options.lowerCandidates?.[index] ?? candidate.toLowerCase();
    if (lower.startsWith(needle)) {
      total++;
      if (prefixed.length < maxValues) prefixed.push(candidate);
    } else if (lower.includes(needle)) {
      total++;
      if (inner.length < maxValues) inner.push(candidate);
    }
  }
  const values = [...prefixed, ...inner].slice(0, maxValues);
  return { values, total, hasMore: total > values.length };
}
