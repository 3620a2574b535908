/**
 * Counting requests in flight against a ceiling, and waiting for none: the
 * concurrency limits and the graceful drain share this one counter shape.
 *
 * @module
 */

/** A bounded counter of work in progress. */
export interface InFlight {
  /** Requests in progress now. */
  count(): number;
  /**
   * Takes a slot when one is free.
   *
   * @returns A release function (idempotent), or null when the ceiling is reached.
   */
  tryEnter(): (() => void) | null;
  /**
   * Resolves when nothing is in flight, or after `timeoutMs`, whichever is first.
   *
   * @returns True when idle, false when the time ran out.
   */
  idle(timeoutMs: number): Promise<boolean>;
}

/**
 * Creates a counter.
 *
 * @param maxInFlight Slots, at least 1.
 * @returns The counter.
 */
export function createInFlight(maxInFlight: number): InFlight {
  let count = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    if (count !== 0) return;
    for (const waiter of [...waiters]) waiter();
  };
  return {
    count: () => count,
    tryEnter: () => {
      if (count >= maxInFlight) return null;
      count++;
      let isReleased = false;
      return () => {
        if (isReleased) return;
        isReleased = true;
        count--;
        wake();
      };
    },
    idle: (timeoutMs) => {
      if (count === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const finish = (isIdle: boolean) => {
          clearTimeout(timer);
          waiters.delete(onIdle);
          resolve(isIdle);
        };
        const onIdle = () => finish(true);
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(onIdle);
      });
    },
  };
}
