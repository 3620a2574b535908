/**
 * When `serve` opens its watch over the owner's files (issue 13): after the
 * worker's first answer, not at start-up. When hB measured it, opening it
 * started a watch isolate, whose creation held the trusted part's thread
 * (the one that answers the worker's descriptor requests while it builds the
 * catalog) and whose module loading took ~60-85 ms of CPU from the worker's
 * on a two-core machine (bench/results/issue13.md, section s11-hB). Since the
 * inotify watch (`src/refresh/inotify/`) it opens an inotify service of its
 * own instead (an inotify descriptor, an eventfd, libc loaded once, a parked
 * poll) and reads both files: less, but still nothing the first answer needs.
 *
 * Nothing is missed by waiting: the watch reads both files at once when it
 * opens (and again once it is live) and applies whatever changed since
 * start-up. Nothing runs on older overrides either (review r17, hB-1): the
 * worker holds every request but `initialize` and `ping` (tool calls,
 * listings, reads) until that first read was posted (serve's
 * `onFirstRead` sends `owner-current`; `src/worker/owner_files_gate.ts`),
 * and a request that comes before the first answer opens the watch at
 * once (`owner-wanted`), as a settings view's write does (it puts its result
 * in force through the watch), so no call waits for an answer that it holds
 * back. That wait is bounded and fails closed (session 13, hA): a first read
 * that cannot accept a file, or an open that throws, refuses the waiting
 * requests (`owner-unread`), and a read that never ends is cut by the
 * worker's `OWNER_FILES_WAIT_MS`; the next request asks again.
 *
 * @module
 */

import type { OwnerFilesWatch } from "./watch_owner_files.ts";

/**
 * The owner-file watch, opened once: at `openBy` or at the first `now()`,
 * whichever is first (an open that threw is tried again at the next `now()`).
 */
export interface DeferredOwnerWatch {
  /**
   * The watch, opened now if it was not yet (null when it cannot be had:
   * `open`'s null).
   *
   * @throws {unknown} What `open` threw (nothing is opened; the next call tries again).
   */
  now(): OwnerFilesWatch | null;
  /** Whether `open` ran and returned. */
  readonly isOpened: boolean;
}

/**
 * Defers opening the owner-file watch until `openBy` settles (resolved or
 * rejected) or someone needs it (`now()`), and opens it exactly once.
 *
 * @param open Opens the watch (`watchOwnerFiles`); null when there is none
 *   (`--static`, `--no-config`, no folder on the way): then never called again.
 *   When it throws, nothing is opened: the opener says why (serve refuses the
 *   waiting requests, session 13 hA), and the next `now()` tries again; an
 *   open at `openBy` that throws is not thrown further.
 * @param openBy When to open it unasked (serve: the worker's first answer, `session.answered`).
 * @returns The deferred watch.
 */
export function deferOwnerWatch(
  open: () => OwnerFilesWatch | null,
  openBy: Promise<unknown>,
): DeferredOwnerWatch {
  let watch: OwnerFilesWatch | null = null;
  let isOpened = false;
  const now = (): OwnerFilesWatch | null => {
    if (!isOpened) {
      watch = open();
      isOpened = true;
    }
    return watch;
  };
  const openUnasked = () => {
    try {
      now();
    } catch { /* said by `open`; the next now() tries again */ }
  };
  openBy.then(openUnasked, openUnasked);
  return {
    now,
    get isOpened() {
      return isOpened;
    },
  };
}
