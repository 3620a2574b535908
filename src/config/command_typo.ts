/**
 * A mistyped command read as a skill root (`skillgate lsit` said "Skill root
 * .../lsit does not exist"; newcomer review, session 6): when a missing root
 * was typed as the first argument, as a bare name (no path separator), within
 * two edits of a command, the message names the command meant.
 *
 * @module
 */

/** Every command `skillgate` takes as its first argument (cli.ts and main.ts). */
export const COMMAND_NAMES: readonly string[] = Object.freeze([
  "serve",
  "list",
  "validate",
  "permissions",
  "sync",
  "config",
  "override",
  "health",
]);

/** The most edits (insert, delete, substitute, swap two neighbours) a typo may be from a command. */
export const MAX_TYPO_EDITS = 2;

/**
 * The command a first argument was probably meant to be.
 *
 * @param typed The first command-line argument, as typed.
 * @returns The nearest command within {@linkcode MAX_TYPO_EDITS} edits (the
 *   first in {@linkcode COMMAND_NAMES} on a tie), or null when `typed` holds a
 *   path separator, is a command itself, or is further from all.
 */
export function commandMeant(typed: string): string | null {
  if (typed.includes("/") || typed.length === 0 || COMMAND_NAMES.includes(typed)) return null;
  let best: string | null = null;
  let bestEdits = MAX_TYPO_EDITS + 1;
  for (const command of COMMAND_NAMES) {
    const edits = editDistance(typed.toLowerCase(), command);
    if (edits < bestEdits) [best, bestEdits] = [command, edits];
  }
  return best;
}

/** Optimal string alignment distance (Levenshtein plus adjacent swaps); short strings only. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
