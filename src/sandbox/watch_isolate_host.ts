/**
 * The trusted part's side of the serving worker's live-refresh watch: when
 * the worker asks (a `watch-isolate` message carrying its end of a channel),
 * the trusted part's inotify service (`src/refresh/inotify/watch_service.ts`)
 * answers the watch protocol on that port, confined to the roots (as
 * configured and real). No isolate is started: inotify opens nothing, so a
 * FIFO in a root holds no thread, and the worker gets no FFI. A new request
 * detaches the previous port first. Where inotify cannot be used (not
 * Linux), the worker is told at once (`watch-isolate-ended`) and reads the
 * roots periodically instead.
 *
 * @module
 */

import type { WatchIsolateEndedMessage } from "./messages.ts";
import type { WatchService } from "../refresh/inotify/watch_service.ts";
import { NO_INOTIFY } from "../refresh/watch_isolate.ts";

/** Answers one serving worker's watch requests. */
export interface WatchIsolateHost {
  /**
   * Detaches the previous port, if any, then answers the watch protocol on
   * `port`.
   *
   * @param port The worker's end of the channel.
   * @param onEnded Called at once when nothing can watch here, with the
   *   message to post to the worker.
   */
  start(port: MessagePort, onEnded: (message: WatchIsolateEndedMessage) => void): void;
  /** Detaches the port, if one is attached (its watches end). */
  stop(): void;
  /** Ports attached so far (for tests). */
  readonly started: number;
}

/**
 * Creates the host. Nothing is watched until the worker asks.
 *
 * @param service The trusted part's inotify service, or null where inotify
 *   cannot be used.
 * @param roots What a watch may be at or under: the local roots, as
 *   configured and real (`watchRoots` in `worker_set.ts`).
 * @returns The host.
 */
export function createWatchIsolateHost(
  service: WatchService | null,
  roots: readonly string[],
): WatchIsolateHost {
  let detach: (() => void) | null = null;
  let started = 0;
  const stop = () => {
    detach?.();
    detach = null;
  };
  return {
    start(port, onEnded) {
      stop();
      if (service === null) {
        port.close();
        onEnded({ type: "watch-isolate-ended", reason: NO_INOTIFY });
        return;
      }
      started++;
      detach = service.attach(port, roots);
    },
    stop,
    get started() {
      return started;
    },
  };
}
