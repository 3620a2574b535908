/**
 * Ending a script's process group, done by the trusted part on the worker's
 * request. `kill(-pgid)` needs unrestricted `--allow-run`, which the worker
 * must not hold; the trusted part holds it, and so must never signal a group
 * it cannot tie to a child of this very process.
 *
 * A group is registered when the worker reports a freshly spawned leader:
 * `/proc/<pid>/stat` must show this process as its parent and the pid as its
 * own process group (the runner spawns detached), and its start time is kept.
 * Later signals go only to registered groups, and while the leader's pid
 * still names a process, that process must be the same (parent, group and
 * start time unchanged); once the leader has been reaped, the group id stays
 * reserved by the kernel for as long as any member lives, so signalling it
 * reaches only what is left of that run. A group is forgotten when its run ends.
 *
 * @module
 */

import type { GroupKiller, GroupSignal } from "../scripts/runner/group_killer.ts";

/** The fields of `/proc/<pid>/stat` the killer checks. */
export interface LeaderStat {
  /** Process state (field 3): `T` when stopped by a signal. */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  /** Start time in clock ticks after boot (field 22). */
  readonly startTime: string;
}

/** What the killer reads and does, injectable for tests. */
export interface GroupKillerIo {
  /** This process's pid. */
  readonly ownPid: number;
  /** Text of `/proc/<pid>/stat`, or null when there is no such process. */
  readonly readStat: (pid: number) => string | null;
  /** Sends a signal to a whole process group; throws when none is left. */
  readonly killGroup: (pgid: number, signal: GroupSignal | "SIGCONT") => void;
  /** Waits this long, in ms, between looks at a leader that should stop itself. */
  readonly pollDelay: (ms: number) => Promise<void>;
}

/** How long a launched leader may take to stop itself before it is given up on, in ms. */
export const STOP_WAIT_MS = 3_000;
/** Time between looks at a leader that should stop itself, in ms. */
const STOP_POLL_MS = 2;

/** Groups registered at once at most (each is one running script). */
export const MAX_REGISTERED_GROUPS = 1024;

/**
 * Parses the fields the killer needs from a `/proc/<pid>/stat` line. The
 * command name (field 2) is in parentheses and may hold spaces and `)`, so
 * fields are counted after the last `)`.
 *
 * @param text The file's text.
 * @returns state (field 3), ppid (field 4), pgid (field 5) and start time
 *   (field 22), or null.
 */
export function parseLeaderStat(text: string): LeaderStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text.slice(close + 2).trim().split(" ");
  const state = fields[0] ?? "";
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid) || startTime === undefined) {
    return null;
  }
  return { state, ppid, pgid, startTime };
}

/** The trusted part's killer: a {@linkcode GroupKiller} that can also end every group at once. */
export interface TrustedGroupKiller extends GroupKiller {
  /**
   * Sends SIGKILL, synchronously, to every registered group still ours (the
   * leader gone, or the same leader by start time): called right before the
   * trusted part exits without the worker's orderly stop (a second signal, a
   * stop deadline), so no process-group script outlives skillgate (review
   * r12, F6). A PID namespace or sandbox ends with its launcher anyway.
   *
   * @returns How many groups were signalled.
   */
  killAllNow(): number;
}

/**
 * Creates the trusted part's group killer.
 *
 * @param io This process's pid, a `/proc` reader, the group signal call and
 *   the poll delay (defaults: `Deno.pid`, `/proc/<pid>/stat`,
 *   `Deno.kill(-pgid, signal)`, a timer).
 * @returns A {@linkcode TrustedGroupKiller} that signals only verified groups.
 *
 * Requires `--allow-all` for the defaults (Deno demands it for any `/proc`
 * read, and `Deno.kill` of a group needs unrestricted `--allow-run`).
 *
 * Source: issue 4, "Runner" (the trusted part ends groups, only verified ones).
 */
export function createGroupKiller(io: Partial<GroupKillerIo> = {}): TrustedGroupKiller {
  const ownPid = io.ownPid ?? Deno.pid;
  const readStat = io.readStat ?? readProcStat;
  const killGroup = io.killGroup ?? ((pgid, signal) => Deno.kill(-pgid, signal));
  const pollDelay = io.pollDelay ??
    ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  /** The leader's stat once it has stopped itself, or null when it did not in time. */
  const stoppedStat = async (pid: number): Promise<LeaderStat | null> => {
    for (let waitedMs = 0; waitedMs <= STOP_WAIT_MS; waitedMs += STOP_POLL_MS) {
      const text = readStat(pid);
      const stat = text === null ? null : parseLeaderStat(text);
      if (stat === null) return null;
      // Not ours (refused by the caller's check), or stopped and ready to be registered.
      if (stat.ppid !== ownPid || stat.pgid !== pid || stat.state === "T") return stat;
      await pollDelay(STOP_POLL_MS);
    }
    return null;
  };
  const registered = new Map<number, string>();
  const matches = (pid: number, startTime: string | null): boolean | null => {
    const text = readStat(pid);
    if (text === null) return null;
    const stat = parseLeaderStat(text);
    return stat !== null && stat.ppid === ownPid && stat.pgid === pid &&
      (startTime === null || stat.startTime === startTime);
  };
  return {
    register: async (pid, options = {}) => {
      if (!Number.isSafeInteger(pid) || pid <= 1 || registered.size >= MAX_REGISTERED_GROUPS) {
        return false;
      }
      const awaitsStop = options.awaitsStop === true;
      let stat: LeaderStat | null;
      if (awaitsStop) stat = await stoppedStat(pid);
      else {
        const text = readStat(pid);
        stat = text === null ? null : parseLeaderStat(text);
      }
      if (stat === null || stat.ppid !== ownPid || stat.pgid !== pid) return false;
      registered.set(pid, stat.startTime);
      if (awaitsStop) {
        // The group is known before the script's first instruction: now let it run.
        try {
          killGroup(pid, "SIGCONT");
        } catch {
          registered.delete(pid);
          return false;
        }
      }
      return true;
    },
    kill: (pid, signal) => {
      const startTime = registered.get(pid);
      if (startTime === undefined) return Promise.resolve(false);
      if (matches(pid, startTime) === false) {
        registered.delete(pid);
        return Promise.resolve(false);
      }
      try {
        killGroup(pid, signal);
        return Promise.resolve(true);
      } catch {
        return Promise.resolve(false);
      }
    },
    release: (pid) => {
      registered.delete(pid);
    },
    killAllNow: () => {
      let signalled = 0;
      for (const [pid, startTime] of registered) {
        if (matches(pid, startTime) === false) continue;
        try {
          killGroup(pid, "SIGKILL");
          signalled++;
        } catch {
          // Already empty.
        }
      }
      registered.clear();
      return signalled;
    },
  };
}

function readProcStat(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}
