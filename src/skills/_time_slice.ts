/**
 * Time slicing for long synchronous work on the event loop: the catalog is
 * built with synchronous file-system calls (about twice as fast as async ones
 * under Deno), and a build of thousands of skills calls `pause()` between
 * folders and skills so that requests, timers and I/O still get their turn
 * every few milliseconds.
 *
 * @module
 */

import { setImmediate } from "node:timers";

/** Work time between two yields to the event loop, in ms. */
export const DEFAULT_SLICE_MS = 10;

/** One stretch of synchronous work; see {@linkcode createTimeSlice}. */
export interface TimeSlice {
  /**
   * Resolves at once (next microtask) while the current slice lasts; once it
   * is used up, resolves after one turn of the event loop and starts a new
   * slice. Callers waiting at the same time share that one turn. Rejects
   * with {@linkcode BackgroundWorkStopped} while the slice's
   * `GiveWay.shouldStop` says so.
   */
  pause(): Promise<void>;
  /** Turns of the event loop given away so far (for tests and benchmarks). */
  readonly yields: number;
}

const NOW: Promise<void> = Promise.resolve();

/** When the last client request arrived (`performance.now()`), for background slices. */
let lastRequestAtMs = Number.NEGATIVE_INFINITY;

/**
 * Tells background slices that a client request just arrived or was just
 * answered: they hold their work until requests pause (issue 13: at 10,000
 * skills the search index's build and the catch-up rescan took a 10 ms turn
 * between the pages of a client's full `skills/list`, doubling it).
 */
export function noteClientRequest(): void {
  lastRequestAtMs = performance.now();
}

/** How background work gives way to requests; see {@linkcode createTimeSlice}. */
export interface GiveWay {
  /** Requests must have paused this long before background work goes on, in ms (> 0). */
  readonly quietMs: number;
  /**
   * Longest one pause waits for quiet, in ms (> 0): a client that never
   * pauses slows background work down, never stops it.
   */
  readonly maxWaitMs: number;
  /** True while something waits on this work (a search queued behind the index build): no waiting. */
  readonly isUrgent?: () => boolean;
  /**
   * True when the work should stop now for something waiting behind it that
   * is quicker to serve first (a watched edit behind the catch-up rescan:
   * s16, an edit noticed 0.8-0.9 s late at 10,000 skills): the next pause
   * rejects with {@linkcode BackgroundWorkStopped}, and the owner runs the
   * work again later. @default never
   */
  readonly shouldStop?: () => boolean;
}

/**
 * What a background slice's pause rejects with once `GiveWay.shouldStop`
 * says so: the work was left unfinished on purpose, nothing of it applies.
 */
export class BackgroundWorkStopped extends Error {
  constructor() {
    super("background work stopped for a change waiting behind it");
    this.name = "BackgroundWorkStopped";
  }
}

/** How often a background pause looks again whether it may go on, in ms. */
const GIVE_WAY_POLL_MS = 50;

/**
 * Longest run of background slices between two turns that read pending I/O,
 * in ms. Under Deno 2.9.6 a chain of `setImmediate` turns does not read
 * sockets or stdin: a line sent every 80 ms to a loop of 10 ms slices waited
 * 179 ms (median, 841 ms at most) with `setImmediate` turns, 6 ms (14 ms at
 * most) with `setTimeout(0)` turns (measured s15; hY saw HTTP requests wait
 * 0.4-0.8 s behind the catch-up rescan). A request that is not read is not
 * seen ({@linkcode noteClientRequest}), so background work could not give way
 * to it. A timer turn costs ~2.4 ms idle, so it is taken at most this often.
 */
export const BACKGROUND_IO_TURN_MS = 25;

/**
 * Creates a time slice. `setImmediate` is the yield: unlike `setTimeout(0)`
 * it is not clamped to a minimum delay after nesting, so a yield costs
 * microseconds. It does not read pending I/O under Deno, though: background
 * work (`giveWay`) takes a timer turn instead at least every
 * {@linkcode BACKGROUND_IO_TURN_MS}, so requests are read and given way to.
 *
 * @param sliceMs Work time between yields, in ms; 0 yields at every pause.
 *   @default 10
 * @param giveWay For background work only (never for work a request waits
 *   on): each pause first waits until no client request
 *   ({@linkcode noteClientRequest}) arrived for `quietMs`, at most
 *   `maxWaitMs`. @default none (yield one turn only)
 * @returns The slice.
 * @throws {RangeError} When `sliceMs` is negative or not finite, or a
 *   `giveWay` figure is not a positive finite number.
 */
export function createTimeSlice(
  sliceMs: number = DEFAULT_SLICE_MS,
  giveWay?: GiveWay,
): TimeSlice {
  if (!Number.isFinite(sliceMs) || sliceMs < 0) {
    throw new RangeError(`Slice length must be a finite number of ms >= 0: "${sliceMs}"`);
  }
  for (const figure of giveWay === undefined ? [] : [giveWay.quietMs, giveWay.maxWaitMs]) {
    if (!Number.isFinite(figure) || figure <= 0) {
      throw new RangeError(`Give-way times must be finite numbers of ms > 0: "${figure}"`);
    }
  }
  let startedMs = performance.now();
  let ioTurnMs = startedMs;
  let waiting: Promise<void> | null = null;
  let yields = 0;
  const isBusy = () =>
    giveWay !== undefined && giveWay.isUrgent?.() !== true &&
    performance.now() - lastRequestAtMs < giveWay.quietMs;
  return {
    pause() {
      if (giveWay?.shouldStop?.() === true) return Promise.reject(new BackgroundWorkStopped());
      if (waiting !== null) return waiting;
      const busy = isBusy();
      if (!busy && sliceMs > 0 && performance.now() - startedMs < sliceMs) return NOW;
      yields++;
      // Background work reads pending I/O (a timer turn) at least every BACKGROUND_IO_TURN_MS, so
      // a request that arrives meanwhile is seen and given way to.
      const isIoTurn = giveWay !== undefined &&
        performance.now() - ioTurnMs >= BACKGROUND_IO_TURN_MS;
      const turn = busy && giveWay !== undefined
        ? untilQuiet(giveWay)
        : new Promise<void>((resolve) => isIoTurn ? setTimeout(resolve, 0) : setImmediate(resolve));
      const isTimerTurn = isIoTurn || busy;
      waiting = turn.then(() => {
        waiting = null;
        startedMs = performance.now();
        if (isTimerTurn) ioTurnMs = startedMs;
      });
      return waiting;
    },
    get yields() {
      return yields;
    },
  };
}

/** Resolves once requests paused for `quietMs`, the work became urgent, or after `maxWaitMs`. */
async function untilQuiet(giveWay: GiveWay): Promise<void> {
  const untilMs = performance.now() + giveWay.maxWaitMs;
  for (;;) {
    if (giveWay.isUrgent?.() === true) return;
    const waitMs = Math.min(lastRequestAtMs + giveWay.quietMs, untilMs) - performance.now();
    if (waitMs <= 0) return;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.ceil(Math.min(waitMs, GIVE_WAY_POLL_MS)))
    );
  }
}
