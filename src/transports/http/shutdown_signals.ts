/**
 * SIGTERM, SIGINT, SIGHUP and SIGQUIT for the server (HTTP and stdio). Signals reach the trusted part (a
 * worker is not delivered them), which relays the first one to the worker as
 * a `shutdown` message so in-flight requests can finish; a second signal
 * means "now". Listening replaces Deno's default (exit at once).
 *
 * @module
 */

import type { ReadyMessage } from "../../sandbox/messages.ts";
import type { Config } from "../../config/config.ts";
import { urlHost } from "./host_policy.ts";
import { counted } from "../../cli/counted.ts";
import { listenAddressOf, mcpUrlOf } from "./http_startup.ts";
import { SIGNAL_NUMBERS } from "../../sandbox/ignored_signals.ts";

/**
 * The signals that ask for a graceful shutdown: SIGTERM (a client's close(),
 * an orchestrator), SIGINT (Ctrl-C), SIGHUP (the terminal or SSH session a
 * client ran in closed) and SIGQUIT (Ctrl-backslash). Deno's default for each ends
 * the process at once (SIGQUIT with a core dump), which would leave
 * process-group scripts running (review r13, G1 and its SIGQUIT note).
 */
export const SHUTDOWN_SIGNALS: readonly Deno.Signal[] = [
  "SIGTERM",
  "SIGINT",
  "SIGHUP",
  "SIGQUIT",
  // Every other catchable signal whose default action ends the process: left to that default,
  // it ended skillgate before its script groups (review r15, H6: SIGXCPU at `ulimit -t`, a stray
  // SIGALRM). SIGUSR1 does not end Deno 2.9.6 (measured); SIGPIPE is ignored by Deno.
  "SIGALRM",
  "SIGUSR2",
  "SIGVTALRM",
  "SIGPROF",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGPWR",
  "SIGSTKFLT",
  "SIGIO",
  "SIGSYS",
];

/**
 * The exit status for a shutdown that a signal forced (128 + its number).
 *
 * @param signal One of {@linkcode SHUTDOWN_SIGNALS}.
 * @returns 128 + its Linux number: 129 (SIGHUP), 130 (SIGINT), 131 (SIGQUIT), 143
 *   (SIGTERM), 152 (SIGXCPU)...; 143 for one not in `SIGNAL_NUMBERS`.
 */
export function signalExitCode(signal: Deno.Signal): number {
  return 128 + (SIGNAL_NUMBERS[signal] ?? 15);
}

/**
 * Listens for {@linkcode SHUTDOWN_SIGNALS}. A signal the process was started
 * with ignored (`nohup` ignores SIGHUP) stays ignored: it gets a listener
 * that does nothing. Leaving it without a listener would not do: Deno's
 * first `addSignalListener`, for any signal, installs its own handlers for
 * SIGHUP, SIGINT and SIGTERM, and a caught signal without a listener ends
 * the process at once (measured on Deno 2.9.6: under `nohup`, a SIGTERM
 * listener alone let a SIGHUP end the process with status 129).
 *
 * @param handlers `onFirst` for the first signal (start draining), `onRepeat`
 *   for any later one (the caller exits at once); `ignored`: the signals
 *   started ignored, from `inheritedIgnoredSignals()`
 *   (`src/sandbox/ignored_signals.ts`), read before this call. @default none
 * @returns A function that removes the listeners.
 *
 * Needs no permission. A signal the platform does not support (SIGTERM on
 * Windows) is skipped.
 */
export function listenForShutdownSignals(handlers: {
  onFirst: (signal: Deno.Signal) => void;
  onRepeat: (signal: Deno.Signal) => void;
  ignored?: readonly Deno.Signal[];
}): () => void {
  let count = 0;
  const listeners = SHUTDOWN_SIGNALS.map((signal) => {
    const listener = (handlers.ignored ?? []).includes(signal) ? () => {} : () => {
      count++;
      if (count === 1) handlers.onFirst(signal);
      else handlers.onRepeat(signal);
    };
    try {
      Deno.addSignalListener(signal, listener);
      return { signal, listener };
    } catch {
      return null;
    }
  });
  return () => {
    for (const entry of listeners) {
      if (entry !== null) Deno.removeSignalListener(entry.signal, entry.listener);
    }
  };
}

/**
 * The line the trusted part prints to stderr once the HTTP server is ready.
 * On a wildcard address (`0.0.0.0`, `::`) it names the listen address and
 * says how to connect (the machine's name, or loopback here), since
 * `http://0.0.0.0:PORT` is no address a client can use.
 *
 * @param config The configuration (`--http`, `--host`, `--stateless`, token).
 * @param ready The worker's start-up summary.
 * @returns One line, e.g. `skillgate: serving 17 skills over Streamable HTTP
 *   at http://127.0.0.1:3000/mcp (sessions, no token)`, or on a wildcard
 *   `... at 0.0.0.0:3000, all interfaces: connect via this machine's name or
 *   http://127.0.0.1:3000/mcp (sessions, bearer token required)`.
 */
export function httpReadyLine(config: Config, ready: ReadyMessage): string {
  const address = listenAddressOf(config);
  const host = urlHost(config.options.host);
  const isWildcard = ["0.0.0.0", "[::]"].includes(host);
  let where = address === null ? "(not HTTP)" : mcpUrlOf(address);
  if (address !== null && isWildcard) {
    const loopback = mcpUrlOf({ host: host === "[::]" ? "::1" : "127.0.0.1", port: address.port });
    where = `${host}:${address.port}, all interfaces: connect via this machine's name or ` +
      loopback;
  }
  const notes = [
    config.options.stateless ? "stateless" : "sessions",
    config.httpToken === null ? "no token" : "bearer token required",
  ];
  const problems = ready.errorCount + ready.warningCount === 0
    ? ""
    : `; ${counted(ready.errorCount, "error")}, ${
      counted(ready.warningCount, "warning")
    } (skillgate list shows them)`;
  return `skillgate: serving ${
    counted(ready.skillCount, "skill")
  } over Streamable HTTP at ${where} ` +
    `(${notes.join(", ")})${problems}`;
}
