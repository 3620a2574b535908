/**
 * The pool of request bodies being read, apart from the requests in flight:
 * reading a body takes one of these slots and nothing else, so senders that
 * trickle or stall cannot hold the slots that answers need. Never refuses:
 * when every slot is taken, one read is ended (its caller answers 408) and
 * the new read takes its slot. The one ended is, among the reads of the
 * lowest rank present, the one that has waited longest for its next bytes.
 * Rank is the caller's: the handler gives the first body of an existing
 * session rank 1 and everything else (no session: `initialize` or junk; a
 * session's second body at once) rank 0, so a flood of sessionless stalled
 * bodies can never end the body of a client already holding a session,
 * while a newcomer's `initialize` still always gets a slot.
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
   * Takes a slot, ending the most stalled read of the lowest rank present
   * first when the pool is full.
   *
   * @param rank 0 or more; higher ranks are ended only when no lower rank is
   *   in the pool. @default 0
   * @returns The slot.
   */
  enter(rank?: number): BodySlot;
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
  type Read = { controller: AbortController; lastProgressMs: number; rank: number };
  const reads = new Set<Read>();
  return {
    count: () => reads.size,
    enter: (rank = 0) => {
      if (reads.size >= maxReads) {
        let stalled: Read | undefined;
        for (const read of reads) {
          if (
            stalled === undefined || read.rank < stalled.rank ||
            (read.rank === stalled.rank && read.lastProgressMs < stalled.lastProgressMs)
          ) {
            stalled = read;
          }
        }
        if (stalled !== undefined) {
          reads.delete(stalled);
          stalled.controller.abort();
        }
      }
      const read: Read = { controller: new AbortController(), lastProgressMs: nowMs(), rank };
      reads.add(read);
      return {
        signal: read.controller.signal,
        progress: () => void (read.lastProgressMs = nowMs()),
        release: () => void reads.delete(read),
      };
    },
  };
}
