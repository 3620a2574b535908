/**
 * A count with its noun in the right number, for the one-line messages a
 * person reads ("1 skill", "2 skills", "0 errors").
 *
 * @module
 */

/**
 * Says `n` things.
 *
 * @param n How many (a whole number, 0 or more).
 * @param noun The noun in the singular, its plural made by adding "s".
 * @returns E.g. `1 skill`, `17 skills`, `0 warnings`.
 */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
