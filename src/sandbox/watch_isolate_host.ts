/**
 * The trusted part's side of the watch isolate (`src/refresh/watch_entry.ts`):
 * starts one when the serving worker asks, with a permission set of reading
 * the roots only, and hands it the worker's end of their channel. The worker
 * cannot start it itself: a worker may load no module it cannot read, and
 * the serving worker reads the roots alone. A new request ends the running
 * isolate first (the worker found it stuck: a FIFO holds Deno's watcher
 * thread, which `terminate()` leaves blocked until the process exits, never
 * blocking this thread; measured under Deno 2.9.6), up to
 * {@linkcode MAX_WATCH_ISOLATES} in all per worker, whatever it asks: each
 * stuck one leaks its threads.
 *
 * @module
 */

import type { WatchIsolateEndedMessage } from "./messages.ts";
import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";

/**
 * Watch isolates started at most per serving worker: the first and four
 * replacements of stuck ones (`src/refresh/watch_isolate.ts` gives up after
 * as many).
 */
export const MAX_WATCH_ISOLATES = 5;

/** Starts and ends the watch isolates of one serving worker. */
export interface WatchIsolateHost {
  /**
   * Ends the running isolate, if any, then starts a fresh one and hands it
   * `port`; past {@linkcode MAX_WATCH_ISOLATES} it starts nothing.
   *
   * @param port The worker's end of the channel (transferred to the isolate).
   * @param onEnded Called once if the isolate fails (it is ended first), or
   *   at once when it cannot be created or the bound is reached, with the
   *   message to post to the worker.
   */
  start(port: MessagePort, onEnded: (message: WatchIsolateEndedMessage) => void): void;
  /** Ends the running isolate, if one runs (never blocks). */
  stop(): void;
  /** Isolates started so far (for tests). */
  readonly started: number;
}

/**
 * Creates the host. Nothing starts until the worker asks.
 *
 * @param entry URL of `src/refresh/watch_entry.ts` (`isolateEntryUrl("watch")`).
 * @param permissions The isolate's set: the roots read only, nothing else
 *   (`watchIsolatePermissions` in `worker_set.ts`).
 * @param maxIsolates @default MAX_WATCH_ISOLATES
 * @returns The host.
 *
 * Requires `--unstable-worker-options`; the trusted part holds every
 * permission it hands down.
 */
export function createWatchIsolateHost(
  entry: URL,
  permissions: WorkerPermissions,
  maxIsolates = MAX_WATCH_ISOLATES,
): WatchIsolateHost {
  let running: Worker | null = null;
  let started = 0;
  const stop = () => {
    running?.terminate();
    running = null;
  };
  return {
    start(port, onEnded) {
      stop();
      if (started >= maxIsolates) {
        port.close();
        onEnded({
          type: "watch-isolate-ended",
          reason: `${maxIsolates} watch isolates were started already`,
        });
        return;
      }
      started++;
      let isolate: Worker;
      try {
        isolate = new Worker(entry, {
          type: "module",
          name: "skillgate-watch",
          deno: { permissions: toWorkerOption(permissions) },
        });
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        port.close();
        onEnded({ type: "watch-isolate-ended", reason: `the watch isolate did not start: ${why}` });
        return;
      }
      running = isolate;
      isolate.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        if (running !== isolate) return;
        stop();
        onEnded({
          type: "watch-isolate-ended",
          reason: `the watch isolate failed: ${event.message}`,
        });
      };
      isolate.postMessage({ type: "watch-port", port }, [port]);
    },
    stop,
    get started() {
      return started;
    },
  };
}
