/**
 * Reading environment values the way hosts write them. A host (a client's
 * configuration file, a container manifest) writes `${VAR}` and is meant to
 * substitute it; when it does not, the literal placeholder arrives. What a
 * placeholder means depends on what the variable guards:
 *
 * - an ordinary setting (a root list, a `SKILLGATE_*` option): unset, so the
 *   documented default applies (the defaults are the narrow choice);
 * - a variable that grants, keys or authenticates something (the script grant
 *   and confirmation settings, the HTTP token): the owner meant to set it,
 *   so skillgate fails closed (see {@linkcode hasPlaceholder}); a placeholder
 *   never widens anything.
 *
 * @module
 */

/** A `${NAME}` placeholder anywhere in a value. */
const PLACEHOLDER = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Whether an environment value counts as unset: missing, blank, or a literal
 * `${VAR}` placeholder left behind by a host that did not substitute it.
 * For ordinary settings only: a security-relevant variable is judged with
 * {@linkcode hasPlaceholder} first.
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
 * Whether a value holds an unsubstituted `${NAME}` placeholder anywhere
 * (`${API_KEY}`, `prefix-${SECRET}`): a host was meant to put something
 * there and did not. For a variable that grants, keys or authenticates, the
 * caller fails closed on it.
 *
 * @param value The raw value, or undefined when the variable is missing.
 * @returns True when a placeholder is present.
 */
export function hasPlaceholder(value: string | undefined): boolean {
  return value !== undefined && PLACEHOLDER.test(value);
}

/**
 * Splits a root list on `:` and `,`, dropping blank entries. Only variable
 * lists (`MCP_SKILLS_PATH`, `SKILLS_DIR`) are split and trimmed: a host
 * writing `a, b` means two roots. A ROOT argument is never trimmed.
 *
 * @param value A list such as `/a/skills:/b/skills` or `/a,/b`.
 * @returns The entries, trimmed, in order.
 */
export function splitRootList(value: string): string[] {
  return value.split(/[:,]/).map((entry) => entry.trim()).filter((entry) => entry !== "");
}
