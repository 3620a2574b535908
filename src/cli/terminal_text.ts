/**
 * Making text from skill folders safe and short for a terminal. Descriptions,
 * folder names and details come from files anyone may have written; printed
 * raw, an escape sequence in a description could rewrite the owner's screen.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
const ELLIPSIS = "…";

/**
 * Replaces control characters (C0 but tab and line feed, DEL, C1) and bidi
 * overrides with a visible `\u{..}` escape, so nothing a skill author wrote
 * can steer the terminal.
 *
 * @param text Any text.
 * @returns The text with every such character escaped, e.g. `\u{1b}`.
 */
export function safeTerminalText(text: string): string {
  return text.replace(CONTROL, (char) => `\\u{${char.codePointAt(0)?.toString(16)}}`);
}

/**
 * Flattens text to one line: escapes control characters, then collapses every
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
