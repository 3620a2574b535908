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
   * slice. Callers waiting at the same time share that one turn.
   */
  pause(): Promise<void>;
  /** Turns of the event loop given away so far (for tests and benchmarks). */
  readonly yields: number;
}

const NOW: Promise<void> = Promise.resolve();

/**
 * Creates a time slice. `setImmediate` is the yield: unlike `setTimeout(0)`
 * it is not clamped to a minimum delay after nesting, so a yield costs
 * microseconds, and pending I/O is polled before it fires.
 *
 * @param sliceMs Work time between yields, in ms; 0 yields at every pause.
 *   @default 10
 * @returns The slice.
 * @throws {RangeError} When `sliceMs` is negative or not finite.
 */
export function createTimeSlice(sliceMs: number = DEFAULT_SLICE_MS): TimeSlice {
  if (!Number.isFinite(sliceMs) || sliceMs < 0) {
    throw new RangeError(`Slice length must be a finite number of ms >= 0: "${sliceMs}"`);
  }
  let startedMs = performance.now();
  let waiting: Promise<void> | null = null;
  let yields = 0;
  return {
    pause() {
      if (waiting !== null) return waiting;
      if (sliceMs > 0 && performance.now() - startedMs < sliceMs) return NOW;
      yields++;
      waiting = new Promise<void>((resolve) =>
        setImmediate(() => {
          waiting = null;
          startedMs = performance.now();
          resolve();
        })
      );
      return waiting;
    },
    get yields() {
      return yields;
    },
  };
}
