/**
 * Whether one option value is narrower than (or the same as) another: the
 * one rule a hosted configuration file and a live edit are held to, read
 * from each option's `narrowing` in the option table.
 *
 * @module
 */

import type { OptionSpec } from "../options.ts";

/**
 * Whether `candidate` narrows `current` (or equals it) for `option`.
 *
 * @param option The option, with its `narrowing` rule (absent: every change widens).
 * @param candidate The proposed value.
 * @param current The value in force.
 * @returns True when applying `candidate` serves, reads or runs no more than
 *   `current` does.
 *
 * Source: issue 19 ("nothing a client sends, and nothing that edits a file
 * while skillgate runs, may widen what skillgate reads or runs").
 */
export function narrows(option: OptionSpec, candidate: unknown, current: unknown): boolean {
  if (sameValue(candidate, current)) return true;
  const rule = option.narrowing;
  if (rule === undefined) return false;
  if (rule === "lower") {
    return typeof candidate === "number" && typeof current === "number" && candidate <= current;
  }
  if (rule === "subset") {
    return Array.isArray(candidate) && Array.isArray(current) &&
      candidate.every((entry) => current.includes(entry));
  }
  const candidateRank = rule.order.indexOf(candidate as string | boolean | null);
  const currentRank = rule.order.indexOf(current as string | boolean | null);
  if (candidateRank < 0) return false;
  return currentRank < 0 || candidateRank <= currentRank;
}

/** Structural equality for option values (numbers, strings, booleans, null, string lists). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((entry, i) => entry === b[i]);
  }
  return a === b;
}
