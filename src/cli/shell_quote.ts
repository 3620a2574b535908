/**
 * Quoting words for a POSIX shell, so a command skillgate suggests (the
 * banner's `claude mcp add ...` line, `--help`) can be pasted as it is, even
 * for a path with a space or a quote in it.
 *
 * @module
 */

/** Characters that never need quoting in a POSIX shell word. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quotes one word for a POSIX shell (sh, bash, zsh): unchanged when it holds
 * only characters the shell leaves alone, else in single quotes, with each
 * `'` written as `'\''`.
 *
 * @param word Any text, e.g. `/home/me/my skills`; `""` gives `''`.
 * @returns The word as the shell must read it, e.g. `'/home/me/my skills'`.
 *   Source of the rule: POSIX Shell Command Language, 2.2.3 Single-Quotes.
 */
export function shellQuote(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Quotes every word and joins them with spaces.
 *
 * @param words The command and its arguments, e.g. `["/opt/x y/skillgate", "serve"]`.
 * @returns One shell command line, e.g. `'/opt/x y/skillgate' serve`.
 */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
