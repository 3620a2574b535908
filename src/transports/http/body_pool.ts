/**
 * The pool of request bodies being read, apart from the requests in flight:
 * reading a body takes one of these slots and nothing else, so senders that
 * trickle or stall cannot hold the slots that answers need.
 *
 * When every slot is taken, a new read waits in line (its bytes stay in the
 * kernel: TCP backpressure) rather than ending a read that is still moving.
 * A slot changes hands early only when its read is proven stalled: no bytes
 * for `stallMs` and across at least {@linkcode STALL_SWEEPS} sweeps of the
 * pool (sweeps run on separate event-loop turns, so bytes that already
 * arrived but were not yet handed over cannot look like a stall, however
 * busy the worker is), or slow: older than `slowGraceMs` and below
 * `minBytesPerSecond` (a trickle). The ended read's caller answers 408.
 *
 * Why: under a flood, dozens of request heads are parsed in one event-loop
 * turn; a pool that ended "the most stalled" read at every entry ended reads
 * whose bytes had simply not been handed over yet, a newcomer's `initialize`
 * among them (bench "under attack" (a) and (c)). Waiting in line cannot be
 * gamed that way: a read that moves is never ended, and a stalled one gives
 * its slot up within `stallMs` plus a few sweeps.
 *
 * A few more slots (`reservedForSessions`) are open to rank 1 and up only:
 * a flood of sessionless bodies fills the shared slots and the line, never
 * these, so a working client's request is read at once.
 *
 * Order in line: the highest rank first, then first come first served. The
 * handler gives the first body of an existing session rank 1 and everything
 * else (no session: `initialize` or junk; a session's second body at once)
 * rank 0, so a working client's request never waits behind a flood of
 * sessionless bodies, and a newcomer waits behind at most the reads that
 * arrived before it. Among the stalled reads, the lowest rank is ended first,
 * then the one quiet longest. Each read also has its own deadline
 * (`HTTP_BODY_TIMEOUT_MS`, enforced by `readJsonBody`), and so has a wait in
 * line (the caller's `timeoutMs`).
 *
 * @module
 */

import { HTTP_BODY_STALL_MS } from "../../caps.ts";

/** Sweeps of the pool a read must stay quiet across before it counts as stalled. */
export const STALL_SWEEPS = 3;

/** One read's slot. */
export interface BodySlot {
  /** Aborted when the pool ends this read for a waiting one. */
  readonly signal: AbortSignal;
  /** Call when bytes arrived, with how many. */
  progress(bytes: number): void;
  /** Frees the slot (the next in line takes it). Idempotent. */
  release(): void;
}

/** Why {@linkcode BodyPool.enter} gave no slot. */
export type BodyWaitEnd = "timed-out" | "aborted";

/** The pool. */
export interface BodyPool {
  /** Reads holding a slot (shared or reserved). */
  count(): number;
  /** Reads waiting in line for a slot. */
  waiting(): number;
  /**
   * Takes a slot: at once when one is free or a holder is stalled (it is
   * ended for this one), else in line.
   *
   * @param rank 0 or more; a higher rank is served first and ended last.
   *   @default 0
   * @param options `timeoutMs`: how long to wait in line, in ms (positive);
   *   `signal`: aborting it leaves the line (the client went away).
   * @returns The slot, or why there is none (`timed-out`: the wait passed
   *   `timeoutMs`; `aborted`: `signal` aborted).
   */
  enter(
    rank?: number,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<BodySlot | BodyWaitEnd>;
  /**
   * Marks quiet reads and hands the slots of stalled ones to the line. The
   * pool runs it on its own timer every `sweepMs` while reads wait; exposed
   * for tests that drive the pool with their own clock.
   */
  sweep(): void;
}

/** Settings of {@linkcode createBodyPool}. */
export interface BodyPoolOptions {
  /** Clock in ms. @default performance.now */
  readonly nowMs?: () => number;
  /** Quiet time after which a read counts as stalled, in ms. @default HTTP_BODY_STALL_MS (100) */
  readonly stallMs?: number;
  /** How often the pool sweeps while reads wait, in ms. @default BODY_SWEEP_MS (25) */
  readonly sweepMs?: number;
  /** Age from which a read below `minBytesPerSecond` counts as slow, in ms. @default 2000 */
  readonly slowGraceMs?: number;
  /** Slowest sustained body rate not ended for a waiting read, in bytes/s. @default 1024 */
  readonly minBytesPerSecond?: number;
  /**
   * Slots beyond `maxReads` that only reads of rank 1 or more may take (a
   * session's first body), so a flood of sessionless bodies never makes a
   * working client wait. @default 0
   */
  readonly reservedForSessions?: number;
  /**
   * Schedules the next sweep; returns a cancel function. Tests pass one that
   * never fires and call `sweep()` themselves. @default setTimeout
   */
  readonly schedule?: (run: () => void, delayMs: number) => () => void;
}

/** Interval of the pool's sweeps while reads wait, in ms. 25. */
export const BODY_SWEEP_MS = 25;

/**
 * Creates a pool.
 *
 * @param maxReads Shared slots, at least 1 (`MAX_HTTP_BODY_READS`, 32).
 * @param options Clock, stall and slow-read thresholds, scheduler (tests).
 * @returns The pool.
 */
export function createBodyPool(maxReads: number, options: BodyPoolOptions = {}): BodyPool {
  const nowMs = options.nowMs ?? (() => performance.now());
  const stallMs = options.stallMs ?? HTTP_BODY_STALL_MS;
  const sweepMs = options.sweepMs ?? BODY_SWEEP_MS;
  const slowGraceMs = options.slowGraceMs ?? 2_000;
  const minBytesPerSecond = options.minBytesPerSecond ?? 1024;
  const reservedForSessions = options.reservedForSessions ?? 0;
  const schedule = options.schedule ?? ((run: () => void, delayMs: number) => {
    const timer = setTimeout(run, delayMs);
    return () => clearTimeout(timer);
  });
  type Read = {
    controller: AbortController;
    rank: number;
    enteredMs: number;
    lastProgressMs: number;
    bytes: number;
    /** Progress calls so far, and at the last sweep. */
    progressCount: number;
    progressAtSweep: number;
    /** Consecutive sweeps that saw no progress. */
    quietSweeps: number;
  };
  type Waiter = { rank: number; grant: (slot: BodySlot) => void };
  const reads = new Set<Read>();
  /** In line, best first: higher rank, then earlier arrival. */
  const line: Waiter[] = [];
  let cancelSweep: (() => void) | null = null;

  const isStalled = (read: Read, now: number) => {
    const ageMs = now - read.enteredMs;
    // A trickle: waiting for bytes now (quiet at the last sweep) and slow on average.
    if (
      read.quietSweeps >= 1 && ageMs >= slowGraceMs &&
      (read.bytes * 1000) / ageMs < minBytesPerSecond
    ) return true;
    return read.quietSweeps >= STALL_SWEEPS && now - read.lastProgressMs >= stallMs;
  };
  /** The stalled read to end first: lowest rank, then quiet longest. */
  const victim = (): Read | undefined => {
    const now = nowMs();
    let chosen: Read | undefined;
    for (const read of reads) {
      if (!isStalled(read, now)) continue;
      if (
        chosen === undefined || read.rank < chosen.rank ||
        (read.rank === chosen.rank && read.lastProgressMs < chosen.lastProgressMs)
      ) chosen = read;
    }
    return chosen;
  };
  const take = (rank: number): BodySlot => {
    const now = nowMs();
    const read: Read = {
      controller: new AbortController(),
      rank,
      enteredMs: now,
      lastProgressMs: now,
      bytes: 0,
      progressCount: 0,
      progressAtSweep: 0,
      quietSweeps: 0,
    };
    reads.add(read);
    return {
      signal: read.controller.signal,
      progress: (bytes) => {
        read.lastProgressMs = nowMs();
        read.bytes += bytes;
        read.progressCount++;
      },
      release: () => {
        if (!reads.delete(read)) return;
        serveLine();
      },
    };
  };
  /** Slots a read of `rank` may count on: the shared ones, plus the reserve from rank 1 on. */
  const capacityFor = (rank: number) => maxReads + (rank >= 1 ? reservedForSessions : 0);
  /** Gives free slots, then the slots of stalled reads, to the line, best first. */
  const serveLine = () => {
    while (line.length > 0) {
      const next = line[0] as Waiter;
      let isBlocked = false;
      while (reads.size >= capacityFor(next.rank)) {
        const stalled = victim();
        if (stalled === undefined) {
          isBlocked = true;
          break;
        }
        reads.delete(stalled);
        stalled.controller.abort();
      }
      if (isBlocked) break;
      line.shift();
      next.grant(take(next.rank));
    }
    if (line.length === 0 && cancelSweep !== null) {
      cancelSweep();
      cancelSweep = null;
    }
  };
  const sweep = () => {
    for (const read of reads) {
      if (read.progressCount === read.progressAtSweep) read.quietSweeps++;
      else read.quietSweeps = 0;
      read.progressAtSweep = read.progressCount;
    }
    serveLine();
  };
  const scheduleSweeps = () => {
    if (cancelSweep !== null) return;
    // A chain of one-shot timers: consecutive sweeps always run on different event-loop turns.
    const next = () => {
      cancelSweep = schedule(() => {
        cancelSweep = null;
        sweep();
        if (line.length > 0 && cancelSweep === null) next();
      }, sweepMs);
    };
    next();
  };
  return {
    count: () => reads.size,
    waiting: () => line.length,
    enter: (rank = 0, { timeoutMs, signal } = {}) => {
      if (signal?.aborted === true) return Promise.resolve("aborted");
      return new Promise<BodySlot | BodyWaitEnd>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        let isSettled = false;
        const onAbort = () => leave("aborted");
        const settle = () => {
          isSettled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        };
        const leave = (why: BodyWaitEnd) => {
          if (isSettled) return;
          const at = line.indexOf(waiter);
          if (at >= 0) line.splice(at, 1);
          settle();
          resolve(why);
          serveLine(); // the next in line may fit now; stops the sweeps when the line is empty
        };
        const waiter: Waiter = {
          rank,
          grant: (slot) => {
            settle();
            resolve(slot);
          },
        };
        let at = line.findIndex((other) => other.rank < rank);
        if (at < 0) at = line.length;
        line.splice(at, 0, waiter);
        serveLine();
        if (isSettled) return;
        if (timeoutMs !== undefined) timer = setTimeout(() => leave("timed-out"), timeoutMs);
        signal?.addEventListener("abort", onAbort, { once: true });
        scheduleSweeps();
      });
    },
    sweep,
  };
}
