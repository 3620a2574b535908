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

/**
 * `${` anywhere: every brace form hosts write (`${NAME}`, `${env:NAME}`,
 * `${input:NAME}`, `${NAME:-default}`, `${workspaceFolder}`, `prefix-${X}`),
 * and an unclosed `${` too. A real token, key, path or JSON grant has no
 * reason to hold `${`, so matching generously only ever fails closed.
 */
const DOLLAR_BRACE = /\$\{/;

/** `{{NAME}}` (or `{{ user_config.name }}`) anywhere: the mustache form some hosts use. */
const DOUBLE_BRACE = /\{\{\s*[A-Za-z_][A-Za-z0-9_.:-]*\s*\}\}/;

/**
 * A whole value that is exactly `$NAME`: a host (or a shell-less launcher)
 * that passed a shell reference through unexpanded. Only the whole value:
 * a `$` inside a value (`pa$$word`, `a$b`) is plausible in a secret, while a
 * generated token is never a bare identifier after `$`; a real secret that
 * did look like `$NAME` is refused with the reason, never used.
 */
const BARE_DOLLAR = /^\$[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Whether a value holds an unsubstituted host placeholder: a host was meant
 * to put something there and did not. The one predicate for every
 * environment value skillgate reads (see {@linkcode isUnsetValue}, which
 * agrees with it); a variable that grants, keys or authenticates fails
 * closed on it, an ordinary setting falls back to its default.
 *
 * Recognised, after trimming: `${` anywhere (`${NAME}`, `${env:NAME}`,
 * `${input:NAME}`, `${NAME:-default}`, `${workspaceFolder}`, `prefix-${X}`,
 * an unclosed `${X`); `{{NAME}}` anywhere; a whole value of exactly `$NAME`.
 * Not recognised: `$` inside a value, `%NAME%`.
 *
 * @param value The raw value, or undefined when the variable is missing.
 * @returns True when a placeholder is present; false for undefined.
 */
export function hasPlaceholder(value: string | undefined): boolean {
  if (value === undefined) return false;
  const trimmed = value.trim();
  return DOLLAR_BRACE.test(trimmed) || DOUBLE_BRACE.test(trimmed) || BARE_DOLLAR.test(trimmed);
}

/**
 * Whether an environment value counts as unset: missing, blank, or holding
 * an unsubstituted host placeholder ({@linkcode hasPlaceholder}, the same
 * predicate, so the two never disagree). For ordinary settings this means
 * "the documented default applies"; a security-relevant variable must also
 * check {@linkcode hasPlaceholder} so a placeholder fails closed instead of
 * reading as "not set".
 *
 * @param value The raw value, or undefined when the variable is missing.
 * @returns True when the value should be ignored.
 */
export function isUnsetValue(value: string | undefined): value is undefined {
  return value === undefined || value.trim() === "" || hasPlaceholder(value);
}

/**
 * Whether a variable is set at all: to anything, blank and placeholders
 * included. For markers whose mere presence says something (a host started
 * us): a host that substitutes an unset variable writes an empty value, and
 * that still says a host started us (review r12, F5: a blank marker read as
 * absent made the server standalone, where declarations grant themselves).
 *
 * @param value The raw value, or undefined when the variable is missing.
 * @returns True when the variable exists in the environment.
 */
export function isSetAtAll(value: string | undefined): value is string {
  return value !== undefined;
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
