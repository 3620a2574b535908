/**
 * Counting requests in flight against a ceiling, and waiting for none: the
 * concurrency limits and the graceful drain share this one counter shape.
 * The counter also keeps a running estimate of how long a slot is held, so a
 * refusal can say truthfully when to come back (`Retry-After`).
 *
 * @module
 */

import { HTTP_RETRY_AFTER_SECONDS, MAX_HTTP_RETRY_AFTER_SECONDS } from "../../caps.ts";

/** A bounded counter of work in progress. */
export interface InFlight {
  /** Requests in progress now. */
  count(): number;
  /** Whether a slot is free now. */
  hasRoom(): boolean;
  /**
   * Takes a slot when one is free.
   *
   * @returns A release function (idempotent), or null when the ceiling is reached.
   */
  tryEnter(): (() => void) | null;
  /**
   * Takes a slot even beyond the ceiling (work that must not be refused, such
   * as a session's first request; its caller bounds how often that happens).
   *
   * @returns A release function (idempotent).
   */
  enter(): () => void;
  /**
   * Resolves when nothing is in flight, or after `timeoutMs`, whichever is first.
   *
   * @returns True when idle, false when the time ran out.
   */
  idle(timeoutMs: number): Promise<boolean>;
  /**
   * Seconds until a slot is likely free: the running average of how long
   * slots were held (an exponentially weighted mean, weight 1/8), rounded
   * up, at least HTTP_RETRY_AFTER_SECONDS (1) and at most
   * MAX_HTTP_RETRY_AFTER_SECONDS (60).
   */
  retryAfterSeconds(): number;
}

/**
 * Creates a counter.
 *
 * @param maxInFlight Slots, at least 1.
 * @param nowMs Clock in ms. @default performance.now
 * @returns The counter.
 */
export function createInFlight(
  maxInFlight: number,
  nowMs: () => number = () => performance.now(),
): InFlight {
  let count = 0;
  let meanHeldMs = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    if (count !== 0) return;
    for (const waiter of [...waiters]) waiter();
  };
  const take = () => {
    count++;
    const startedMs = nowMs();
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      count--;
      meanHeldMs += (nowMs() - startedMs - meanHeldMs) / 8;
      wake();
    };
  };
  return {
    count: () => count,
    hasRoom: () => count < maxInFlight,
    tryEnter: () => count >= maxInFlight ? null : take(),
    enter: take,
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
    retryAfterSeconds: () =>
      Math.min(
        MAX_HTTP_RETRY_AFTER_SECONDS,
        Math.max(HTTP_RETRY_AFTER_SECONDS, Math.ceil(meanHeldMs / 1000)),
      ),
  };
}
