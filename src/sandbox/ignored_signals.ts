/**
 * Which shutdown signals this process was started with set to "ignore" (by
 * `nohup`, which ignores SIGHUP, or a shell without job control starting a
 * background job, which ignores SIGINT and SIGQUIT). Deno's first
 * `addSignalListener` replaces an ignored SIGHUP, SIGINT or SIGTERM with its
 * own handler, so the trusted part asks first and gives an ignored signal a
 * listener that does nothing, as POSIX programs leave an ignored signal
 * ignored (review r13: `nohup skillgate ...` did not survive a hangup).
 *
 * Read from `/proc/self/status` (`SigIgn`, a hexadecimal mask whose bit
 * N - 1 is signal N), which exists on Linux only; elsewhere nothing is
 * reported ignored and every shutdown signal is handled.
 *
 * @module
 */

/**
 * Linux signal numbers of the signals skillgate may listen for: every
 * catchable one whose default action ends the process (signal(7)).
 */
export const SIGNAL_NUMBERS: Readonly<Partial<Record<Deno.Signal, number>>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGUSR2: 12,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGSTKFLT: 16,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGIO: 29,
  SIGPWR: 30,
  SIGSYS: 31,
};

/**
 * The signals of `candidates` that a `/proc/<pid>/status` text reports
 * ignored (its `SigIgn:` line).
 *
 * @param statusText The file's text.
 * @param candidates The signals to look for (Linux numbering; one not in
 *   {@linkcode SIGNAL_NUMBERS} is never reported).
 * @returns The ignored ones, in `candidates` order; empty when the line is
 *   missing or not hexadecimal.
 */
export function ignoredSignalsIn(
  statusText: string,
  candidates: readonly Deno.Signal[],
): Deno.Signal[] {
  const match = /^SigIgn:\s*([0-9a-fA-F]{1,16})\s*$/m.exec(statusText);
  if (match === null) return [];
  const mask = BigInt(`0x${match[1]}`);
  return candidates.filter((signal) => {
    const number = SIGNAL_NUMBERS[signal];
    return number !== undefined && ((mask >> BigInt(number - 1)) & 1n) === 1n;
  });
}

/** This process's status text as {@linkcode recordInheritedSignals} read it (null: unreadable). */
let recorded: { readonly text: string | null } | null = null;

function readOwnStatus(): string {
  return Deno.readTextFileSync("/proc/self/status");
}

/**
 * Reads which signals this process was started with ignored, once, and
 * keeps it for {@linkcode inheritedIgnoredSignals}. Deno's first
 * `addSignalListener` on any thread (a worker's too: measured, Deno 2.9.6)
 * replaces the process-wide disposition and clears its `SigIgn` bit, so the
 * read must come before any second thread exists: `main.ts` calls this as
 * its first statement, before the start record's early worker (s11-hD, h11).
 * Later calls keep the first reading. Never throws.
 *
 * @param readStatus Reads this process's status text. @default reads
 *   `/proc/self/status`
 *
 * Requires `--allow-all` for the default reader (Deno demands it for any
 * `/proc` read); the trusted part holds it. Without it, or off Linux,
 * nothing is reported ignored.
 */
export function recordInheritedSignals(readStatus: () => string = readOwnStatus): void {
  if (recorded !== null) return;
  try {
    recorded = { text: readStatus() };
  } catch {
    recorded = { text: null };
  }
}

/**
 * The signals of `candidates` this process inherited as ignored: from the
 * reading {@linkcode recordInheritedSignals} kept, taken before any thread
 * could add a listener; where none was kept (a test, a one-shot command),
 * read now (then call it before any signal listener is added).
 *
 * @param candidates The signals to look for.
 * @param readStatus Reads this process's status text now, whatever was
 *   kept. @default the kept reading, else reads `/proc/self/status`
 * @returns The ignored ones; empty when the status cannot be read (not
 *   Linux): then every signal is handled, as before.
 *
 * Requires `--allow-all` for the default reader (Deno demands it for any
 * `/proc` read); the trusted part holds it.
 */
export function inheritedIgnoredSignals(
  candidates: readonly Deno.Signal[],
  readStatus?: () => string,
): Deno.Signal[] {
  let text: string | null;
  if (readStatus === undefined && recorded !== null) text = recorded.text;
  else {
    try {
      text = (readStatus ?? readOwnStatus)();
    } catch {
      return [];
    }
  }
  return text === null ? [] : ignoredSignalsIn(text, candidates);
}
