/**
 * Making text from skill folders safe and short for a terminal. Descriptions,
 * folder names and details come from files anyone may have written; printed
 * raw, an escape sequence in a description could rewrite the owner's screen.
 *
 * @module
 */

/**
 * Every character that can steer a terminal or reorder what a reader sees:
 * C0 controls but tab and line feed (ESC starts every escape sequence, CR
 * overwrites a line, BEL ends an OSC title), DEL, C1 controls (U+009B is a
 * one-byte CSI, U+0085 a line break), the line and paragraph separators
 * U+2028 and U+2029, and the bidi marks, embeddings, overrides and isolates
 * (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const ELLIPSIS = "…";

/**
 * THE escaping function for text from skill folders on its way to a terminal
 * or to standard output: replaces every character of {@linkcode UNSAFE} with
 * a visible `\u{..}` escape, so nothing a skill author wrote can set the
 * window title, clear the screen, change colours or reorder a line. Tab and
 * line feed stay.
 *
 * @param text Any text.
 * @returns The text with every such character escaped, e.g. `\u{1b}`.
 */
export function safeTerminalText(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u{${char.codePointAt(0)?.toString(16)}}`);
}

/**
 * `JSON.stringify` for every JSON skillgate prints (`list --json`,
 * `permissions --json`): the same characters {@linkcode safeTerminalText}
 * escapes, which `JSON.stringify` leaves raw (DEL, C1, U+2028, bidi marks),
 * are written as `\uXXXX` escapes, so the output is plain JSON that decodes
 * to the same value and is safe to print. Pure.
 *
 * @param value Any JSON-serialisable value.
 * @param indent Spaces per indentation level. @default 2
 * @returns The JSON text, without a trailing newline.
 */
export function jsonForTerminal(value: unknown, indent = 2): string {
  // Outside strings JSON holds only ASCII punctuation, digits, letters and whitespace, so
  // every match lies inside a string, where a \uXXXX escape means the same character.
  return JSON.stringify(value, null, indent).replace(
    UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Writes one line to standard error through {@linkcode safeTerminalText}:
 * the one way the worker and the trusted part log text that may hold a skill
 * name, a path or an error message.
 *
 * @param text The line (a trailing newline is added by `console.error`).
 */
export function logErrorLine(text: string): void {
  console.error(safeTerminalText(text));
}

/**
 * An error as one loggable string: its stack when it has one (which starts
 * with the message), else its message, else `String(error)`.
 *
 * @param error Anything thrown.
 * @returns Text for {@linkcode logErrorLine}.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** Every whitespace character other than the plain space (line breaks, tabs, U+2028/9, ...). */
const NOT_A_SPACE = /[^\S ]/gu;

/**
 * Shows a name or path on one line exactly: every character that is not a
 * plain space but would move the cursor (`\n`, `\r`, `\t`, U+0085,
 * U+2028/9, ...) and every control or bidi character becomes `\u{...}`, so
 * a folder named `a\nb` prints as `a\u{a}b`, never as `a b` (a different
 * name). Nothing is trimmed or collapsed.
 *
 * @param text A name or path.
 * @returns One line.
 */
export function oneLineName(text: string): string {
  return safeTerminalText(text).replace(
    NOT_A_SPACE,
    (char) => `\\u{${char.codePointAt(0)?.toString(16)}}`,
  );
}

/**
 * Flattens prose to one line (for names and paths use
 * {@linkcode oneLineName}): escapes control characters, then collapses every
 * run of whitespace (line breaks included) to one space and trims.
 *
 * @param text Any text, e.g. a multi-line description.
 * @returns One line.
 */
export function oneLine(text: string): string {
  return safeTerminalText(text.replace(/\s+/gu, " ").trim());
}

/**
 * Cuts text to at most `width` code points, ending in `…` when cut. Code
 * points are counted as one column each (wide East Asian characters take two
 * on most terminals and may overflow by that much).
 *
 * @param text One line of text.
 * @param width Columns available; 0 or less gives `""`.
 * @returns The text, whole when it fits.
 */
export function cutToWidth(text: string, width: number): string {
  if (width <= 0) return "";
  const chars = [...text];
  if (chars.length <= width) return text;
  return chars.slice(0, width - 1).join("") + ELLIPSIS;
}

/**
 * Pads text with spaces on the right to `width` code points.
 *
 * @param text The text (not longer than `width`, or it is returned as is).
 * @param width Columns to fill.
 * @returns The padded text.
 */
export function padEnd(text: string, width: number): string {
  const length = [...text].length;
  return length >= width ? text : text + " ".repeat(width - length);
}
