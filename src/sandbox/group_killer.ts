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
  readonly killGroup: (pgid: number, signal: GroupSignal) => void;
}

/** Groups registered at once at most (each is one running script). */
export const MAX_REGISTERED_GROUPS = 1024;

/**
 * Parses the fields the killer needs from a `/proc/<pid>/stat` line. The
 * command name (field 2) is in parentheses and may hold spaces and `)`, so
 * fields are counted after the last `)`.
 *
 * @param text The file's text.
 * @returns ppid (field 4), pgid (field 5) and start time (field 22), or null.
 */
export function parseLeaderStat(text: string): LeaderStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text.slice(close + 2).trim().split(" ");
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid) || startTime === undefined) {
    return null;
  }
  return { ppid, pgid, startTime };
}

/**
 * Creates the trusted part's group killer.
 *
 * @param io This process's pid, a `/proc` reader and the group signal call
 *   (defaults: `Deno.pid`, `/proc/<pid>/stat`, `Deno.kill(-pgid, signal)`).
 * @returns A {@linkcode GroupKiller} that signals only verified groups.
 *
 * Requires `--allow-all` for the defaults (Deno demands it for any `/proc`
 * read, and `Deno.kill` of a group needs unrestricted `--allow-run`).
 *
 * Source: issue 4, "Runner" (the trusted part ends groups, only verified ones).
 */
export function createGroupKiller(io: Partial<GroupKillerIo> = {}): GroupKiller {
  const ownPid = io.ownPid ?? Deno.pid;
  const readStat = io.readStat ?? readProcStat;
  const killGroup = io.killGroup ?? ((pgid, signal) => Deno.kill(-pgid, signal));
  const registered = new Map<number, string>();
  const matches = (pid: number, startTime: string | null): boolean | null => {
    const text = readStat(pid);
    if (text === null) return null;
    const stat = parseLeaderStat(text);
    return stat !== null && stat.ppid === ownPid && stat.pgid === pid &&
      (startTime === null || stat.startTime === startTime);
  };
  return {
    register: (pid) => {
      if (!Number.isSafeInteger(pid) || pid <= 1 || registered.size >= MAX_REGISTERED_GROUPS) {
        return Promise.resolve(false);
      }
      const text = readStat(pid);
      const stat = text === null ? null : parseLeaderStat(text);
      if (stat === null || stat.ppid !== ownPid || stat.pgid !== pid) return Promise.resolve(false);
      registered.set(pid, stat.startTime);
      return Promise.resolve(true);
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
  };
}

function readProcStat(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}
