/**
 * What a one-shot command (`list`, `validate`, `permissions`) receives from
 * `main.ts`: the world it may write to and read, passed in so that each
 * command is a function returning an exit code and only `main.ts` exits.
 *
 * @module
 */

/** The outputs and terminal facts `main.ts` reads for a command. */
export interface CommandIo {
  /** Writes text to standard output, whole. */
  readonly writeOut: (text: string) => Promise<void>;
  /** Writes text to standard error, whole. */
  readonly writeErr: (text: string) => Promise<void>;
  /** Whether standard output is a terminal (a person reads it). */
  readonly isTerminal: boolean;
  /**
   * Columns the table may use: the terminal's width, else `COLUMNS` when it is
   * a whole number, else {@linkcode DEFAULT_COLUMNS}.
   */
  readonly columns: number;
  /** Absolute working directory; findings under it are printed relative to it. */
  readonly cwd: string;
  /** Looks up one environment variable (PATH for interpreters, granted names). */
  readonly getEnv: (name: string) => string | undefined;
}

/** Table width when standard output is not a terminal and `COLUMNS` is unset. */
export const DEFAULT_COLUMNS = 100;

/** Narrowest table laid out; a smaller width is raised to this. */
export const MIN_COLUMNS = 40;

/** Exit code for a bad command line or an unusable root (as for `serve`). */
export const EXIT_USAGE = 2;

/**
 * Decides the table width from what `main.ts` read.
 *
 * @param terminalColumns The terminal's width when standard output is one, else null.
 * @param columnsEnv The raw `COLUMNS` variable, or undefined when unset.
 * @returns Columns to lay out in, at least {@linkcode MIN_COLUMNS}; defaults
 *   to {@linkcode DEFAULT_COLUMNS}.
 */
export function decideColumns(
  terminalColumns: number | null,
  columnsEnv: string | undefined,
): number {
  let columns = DEFAULT_COLUMNS;
  if (terminalColumns !== null && terminalColumns > 0) columns = terminalColumns;
  else if (columnsEnv !== undefined && /^\s*\d{1,5}\s*$/.test(columnsEnv)) {
    columns = Number(columnsEnv.trim());
  }
  return Math.max(MIN_COLUMNS, columns);
}
