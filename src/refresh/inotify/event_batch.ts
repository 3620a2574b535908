/**
 * The events one port is sent in one `events` message, coalesced: live
 * refresh only needs to know WHICH paths changed (it reads them again), not
 * how often, so a path already in the batch with the same kind is not
 * queued twice, and past {@linkcode MAX_EVENTS_PER_BATCH} distinct events a
 * watch's events give way to one rescan of it (what an inotify overflow
 * asks for). Without this, a folder exchanged with a link in a tight loop
 * (`renameat2(RENAME_EXCHANGE)`, about 150,000 events a second here) was
 * posted event by event: the trusted thread spent its time serializing
 * messages of up to 37,000 events, the serving worker's memory grew past
 * 500 MiB with messages it could not read fast enough, and `skill_list`
 * went unanswered until the flood stopped (CI, session 11).
 *
 * Pure; no permission.
 *
 * @module
 */

import type { CarriedEvent } from "../watch_messages.ts";

/**
 * Distinct events one batch holds before a watch's events become one
 * rescan of it: enough for a `git checkout` of a large catalog's changes to
 * arrive as paths (each refreshed alone), few enough that one message stays
 * small (a few hundred KiB of paths at most).
 */
export const MAX_EVENTS_PER_BATCH = 4_096;

/** One port's pending batch. */
export interface EventBatch {
  /**
   * Adds `event` unless the batch already says as much: the same path and
   * kind of the same watch, or a rescan of its watch.
   *
   * @returns Whether the batch was empty before (the caller schedules a flush).
   */
  add(event: CarriedEvent): boolean;
  /** Events queued now. */
  readonly size: number;
  /**
   * Takes the batch (first arrival order; a watch's rescan where its first
   * event was) and starts an empty one.
   */
  take(): CarriedEvent[];
}

/**
 * Creates an empty batch.
 *
 * @param maxEvents Distinct events before a watch's events become one rescan
 *   (tests lower it). @default MAX_EVENTS_PER_BATCH
 * @returns The batch.
 * @throws {RangeError} When `maxEvents` is not a positive integer.
 */
export function createEventBatch(maxEvents = MAX_EVENTS_PER_BATCH): EventBatch {
  if (!Number.isSafeInteger(maxEvents) || maxEvents < 1) {
    throw new RangeError(`maxEvents must be a positive integer (got "${maxEvents}")`);
  }
  let events: (CarriedEvent | null)[] = [];
  let keys = new Set<string>();
  /** Watches whose events gave way to a rescan in this batch, by the rescan's index. */
  let rescans = new Map<number, number>();
  let size = 0;
  return {
    add(event) {
      const wasEmpty = size === 0;
      if (rescans.has(event.watch)) return wasEmpty;
      if (event.flag === "rescan" || keys.size >= maxEvents) {
        // One rescan stands for every event of its watch: those already queued are dropped.
        for (let index = 0; index < events.length; index++) {
          const queued = events[index];
          if (queued !== null && queued !== undefined && queued.watch === event.watch) {
            events[index] = null;
            size--;
          }
        }
        rescans.set(event.watch, events.length);
        events.push({ watch: event.watch, kind: "other", paths: [], flag: "rescan" });
        size++;
        return wasEmpty;
      }
      const key = `${event.watch}\u0000${event.kind}\u0000${event.paths.join("\u0000")}`;
      if (keys.has(key)) return wasEmpty;
      keys.add(key);
      events.push(event);
      size++;
      return wasEmpty;
    },
    get size() {
      return size;
    },
    take() {
      const taken = events.filter((event): event is CarriedEvent => event !== null);
      events = [];
      keys = new Set();
      rescans = new Map();
      size = 0;
      return taken;
    },
  };
}
