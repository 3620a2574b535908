/**
 * The only module that spawns processes. A script runs from an argv array
 * (never a shell), with stdin closed, a cleared environment plus exactly the
 * names the caller built, in the skill folder, as the leader of its own
 * process group. Every way a run can end is handled here: exit, signal,
 * timeout (SIGTERM to the group, SIGKILL after a grace period),
 * cancellation, output caps, and a hard deadline so the call returns even
 * when a detached grandchild keeps the pipes open.
 *
 * @module
 */

import { collectOutput } from "./capped_output.ts";
import type { GroupKiller } from "./group_killer.ts";

/** Bytes of stdout and of stderr kept per run, each. */
export const MAX_STREAM_BYTES = 1024 * 1024;
/** Time between SIGTERM and SIGKILL, in ms. */
export const KILL_GRACE_MS = 2_000;
/** Time the pipes get to close after the leader exits, in ms. */
export const DRAIN_MS = 1_000;
/** Time the pipes get after the final SIGKILL before they are abandoned, in ms. */
export const PIPE_DEADLINE_MS = 2_000;

type Timer = ReturnType<typeof setTimeout>;

/** Exactly what to start. */
export interface RunSpec {
  /** Absolute literal path of the program (must be on the worker's run permission). */
  readonly program: string;
  /** Arguments after the program, passed as-is (no shell). */
  readonly args: readonly string[];
  /** Working directory: the skill's real folder. */
  readonly cwd: string;
  /** The whole environment of the child; nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Wall-clock budget in ms. */
  readonly timeoutMs: number;
  /**
   * Whether the program is the group launcher, which stops itself before it
   * execs the script until its group is registered (see `isolate()`).
   * @default false
   */
  readonly stopsBeforeExec?: boolean;
}

/** Options of {@linkcode runScript}. */
export interface RunOptions {
  /** Ends the script's process group (the trusted part does it in the product). */
  readonly killer: GroupKiller;
  /** Cancels the run (MCP cancellation): the group is ended as on a timeout. */
  readonly signal?: AbortSignal;
  /** Bytes kept per stream. @default 1048576 */
  readonly maxStreamBytes?: number;
  /** SIGTERM to SIGKILL, in ms. @default 2000 */
  readonly graceMs?: number;
  /** Pipe drain after the leader exits, in ms. @default 1000 */
  readonly drainMs?: number;
  /** Pipe wait after the final SIGKILL, in ms. @default 2000 */
  readonly pipeDeadlineMs?: number;
  /** Called with the bytes of output so far (both streams) whenever more arrive. */
  readonly onOutputBytes?: (totalBytes: number) => void;
}

/** How a run ended. A non-zero exit is a normal outcome, not an error. */
export interface RunOutcome {
  /** Exit code, or null when the leader died of a signal or could not start. */
  readonly exitCode: number | null;
  /** The signal that ended the leader (e.g. `SIGKILL`), or null. */
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
  /** Whether the timeout fired. */
  readonly timedOut: boolean;
  /** Whether the run was cancelled through `signal`. */
  readonly cancelled: boolean;
  /** Wall-clock time from spawn to return, in ms. */
  readonly durationMs: number;
  /** Whether the pipes were still open at the deadline (a process outside the group held them). */
  readonly pipesAbandoned: boolean;
  /** Whether the process group was verified by the killer (so it could be ended). */
  readonly groupVerified: boolean;
  /** Why the program could not be started (then every other field is empty). */
  readonly spawnError?: string;
}

/**
 * Runs one program to completion under the rules above. Never throws for
 * anything the script does; a program that cannot be started yields an
 * outcome with `spawnError`.
 *
 * @param spec Program, arguments, folder, environment and timeout.
 * @param options The group killer, cancellation, caps and grace periods.
 * @returns The outcome, with output decoded as UTF-8 (U+FFFD for bad bytes).
 *
 * Requires `--allow-run` for `spec.program` (literal path).
 *
 * Source: issue 4, "Runner"; anchors.md (execution rules); execa's one
 * module per way a process ends.
 */
export async function runScript(spec: RunSpec, options: RunOptions): Promise<RunOutcome> {
  const started = performance.now();
  const maxBytes = options.maxStreamBytes ?? MAX_STREAM_BYTES;
  const graceMs = options.graceMs ?? KILL_GRACE_MS;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(spec.program, {
      args: [...spec.args],
      cwd: spec.cwd,
      clearEnv: true,
      env: { ...spec.env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    return {
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: "",
      truncated: { stdout: false, stderr: false },
      timedOut: false,
      cancelled: false,
      durationMs: Math.round(performance.now() - started),
      pipesAbandoned: false,
      groupVerified: false,
      spawnError: error instanceof Error ? error.name : "Error",
    };
  }
  const pid = child.pid;
  const stopsBeforeExec = spec.stopsBeforeExec === true;
  const registered = options.killer.register(pid, { awaitsStop: stopsBeforeExec });
  if (stopsBeforeExec) {
    // Unregistered, the launcher stays stopped before the script's first instruction: end it.
    void registered.then((isVerified) => {
      if (!isVerified) signalLeader("SIGKILL");
    });
  }
  let stdoutBytes = 0;
  let stderrBytes = 0;
  const report = () => options.onOutputBytes?.(stdoutBytes + stderrBytes);
  const stdout = collectOutput(child.stdout, {
    maxBytes,
    onBytes: (total) => {
      stdoutBytes = total;
      report();
    },
  });
  const stderr = collectOutput(child.stderr, {
    maxBytes,
    onBytes: (total) => {
      stderrBytes = total;
      report();
    },
  });
  const timers = new Set<Timer>();
  const later = (ms: number, action: () => void) => {
    const id = setTimeout(() => {
      timers.delete(id);
      action();
    }, ms);
    timers.add(id);
  };
  let timedOut = false;
  let cancelled = false;
  let ending = false;
  let leaderExited = false;
  // The leader is also signalled directly (no group rights needed), so it
  // ends even when the group could not be verified.
  function signalLeader(signal: "SIGTERM" | "SIGKILL"): void {
    if (leaderExited) return;
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
  const endGroup = () => {
    if (ending) return;
    ending = true;
    void registered.then(async (isVerified) => {
      if (!isVerified || !(await options.killer.kill(pid, "SIGTERM"))) signalLeader("SIGTERM");
    });
    later(graceMs, () => {
      void options.killer.kill(pid, "SIGKILL");
      signalLeader("SIGKILL");
    });
  };
  later(spec.timeoutMs, () => {
    timedOut = true;
    endGroup();
  });
  const onAbort = () => {
    cancelled = true;
    endGroup();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  const status = await child.status;
  leaderExited = true;
  const pipes = Promise.all([stdout.done, stderr.done]);
  let pipesClosed = await settlesWithin(pipes, options.drainMs ?? DRAIN_MS, timers);
  const groupVerified = await registered;
  await options.killer.kill(pid, "SIGKILL");
  if (!pipesClosed) {
    pipesClosed = await settlesWithin(pipes, options.pipeDeadlineMs ?? PIPE_DEADLINE_MS, timers);
  }
  if (!pipesClosed) await Promise.all([stdout.abandon(), stderr.abandon()]);
  options.killer.release(pid);
  options.signal?.removeEventListener("abort", onAbort);
  for (const id of timers) clearTimeout(id);
  const out = stdout.result();
  const err = stderr.result();
  return {
    exitCode: status.signal === null ? status.code : null,
    signal: status.signal,
    stdout: out.text,
    stderr: err.text,
    truncated: { stdout: out.isTruncated, stderr: err.isTruncated },
    timedOut,
    cancelled,
    durationMs: Math.round(performance.now() - started),
    pipesAbandoned: !pipesClosed,
    groupVerified,
  };
}

/** Whether `promise` settles within `ms`; the timer is always cleared. */
async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
  timers: Set<Timer>,
): Promise<boolean> {
  let id: Timer | undefined;
  const expired = new Promise<false>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    id = timer;
    timers.add(timer);
  });
  const settled = await Promise.race([promise.then(() => true as const), expired]);
  if (id !== undefined) {
    clearTimeout(id);
    timers.delete(id);
  }
  return settled;
}
