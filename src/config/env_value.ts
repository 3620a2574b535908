/**
 * Reading environment values the way hosts write them.
 *
 * @module
 */

/**
 * Whether an environment value counts as unset: missing, blank, or a literal
 * `${VAR}` placeholder left behind by a host that did not substitute it.
 *
 * @param value The raw value, or undefined when the variable is missing.
 * @returns True when the value should be ignored.
 */
export function isUnsetValue(value: string | undefined): value is undefined {
  if (value === undefined) return true;
  const trimmed = value.trim();
  return trimmed === "" || /^\$\{[^}]*\}$/.test(trimmed);
}

/**
 * Splits a root list on `:` and `,`, dropping blank entries.
 *
 * @param value A list such as `/a/skills:/b/skills` or `/a,/b`.
 * @returns The entries, trimmed, in order.
 */
export function splitRootList(value: string): string[] {
  return value.split(/[:,]/).map((entry) => entry.trim()).filter((entry) => entry !== "");
}
