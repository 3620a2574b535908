/**
 * The pool of request bodies being read, apart from the requests in flight:
 * reading a body takes one of these slots and nothing else, so senders that
 * trickle or stall cannot hold the slots that answers need. Never refuses:
 * when every slot is taken, the read that has waited longest for its next
 * bytes is ended (its caller answers 408) and the new read takes its slot.
 * Each read also has its own deadline (`HTTP_BODY_TIMEOUT_MS`), enforced by
 * `readJsonBody`.
 *
 * @module
 */

/** One read's slot. */
export interface BodySlot {
  /** Aborted when the pool ends this read for a newer one. */
  readonly signal: AbortSignal;
  /** Call when bytes arrived (the read is not stalled). */
  progress(): void;
  /** Frees the slot. Idempotent. */
  release(): void;
}

/** The pool. */
export interface BodyPool {
  /** Reads in progress. */
  count(): number;
  /**
   * Takes a slot, ending the most stalled read first when the pool is full.
   *
   * @returns The slot.
   */
  enter(): BodySlot;
}

/**
 * Creates a pool.
 *
 * @param maxReads Slots, at least 1 (`MAX_HTTP_BODY_READS`, 32).
 * @param nowMs Clock in ms. @default performance.now
 * @returns The pool.
 */
export function createBodyPool(
  maxReads: number,
  nowMs: () => number = () => performance.now(),
): BodyPool {
  const reads = new Set<{ controller: AbortController; lastProgressMs: number }>();
  return {
    count: () => reads.size,
    enter: () => {
      if (reads.size >= maxReads) {
        let stalled: { controller: AbortController; lastProgressMs: number } | undefined;
        for (const read of reads) {
          if (stalled === undefined || read.lastProgressMs < stalled.lastProgressMs) {
            stalled = read;
          }
        }
        if (stalled !== undefined) {
          reads.delete(stalled);
          stalled.controller.abort();
        }
      }
      const read = { controller: new AbortController(), lastProgressMs: nowMs() };
      reads.add(read);
      return {
        signal: read.controller.signal,
        progress: () => void (read.lastProgressMs = nowMs()),
        release: () => void reads.delete(read),
      };
    },
  };
}
