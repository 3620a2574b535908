/**
 * Opening live refresh's watchers: one recursive watcher over every path when
 * it can, else what `planWatch` finds can be watched. The same code runs in
 * the watch isolate (`watch_entry.ts`, the default) and, when a test injects
 * its own opener, in the serving worker's thread (`inProcessWatch`).
 *
 * @module
 */

import { isWatchLimit, MAX_PATHS_PER_WATCH, planWatch, WATCH_LIMIT } from "./watch_plan.ts";
import type { LostFolder, WatchOpener } from "./watch_plan.ts";

/** A watcher as live refresh reads it: its events, until `close()`. */
export interface WatchHandle extends AsyncIterable<Deno.FsEvent> {
  /** Stops the watcher; its iteration ends. Idempotent. */
  close(): void;
}

/** The watchers over a list of paths and what they could not watch. */
export interface OpenedWatch<W extends WatchHandle = WatchHandle> {
  readonly watchers: W[];
  readonly lost: readonly LostFolder[];
  /** Folders watched flat (their sub-folders watched on their own). */
  readonly flat: readonly string[];
  readonly flatEntries: ReadonlyMap<string, readonly string[]>;
  /** Paths the watchers hold in all. */
  readonly pathCount: number;
}

/**
 * Where live refresh's watchers are opened: the watch isolate
 * (`watch_isolate.ts`) or this thread (`inProcessWatch`, tests). Every call
 * answers asynchronously; the serving thread never waits on a watcher's lock.
 */
export interface WatchBackend {
  /**
   * Opens one recursive watcher over every path, else the plan's watchers
   * (see {@linkcode openWatchers}).
   *
   * @param paths Absolute folders.
   * @param knownError The error a recursive watch of all `paths` just gave.
   * @returns What was opened and lost.
   * @throws {Error} Only when the backend stopped (a stuck isolate replaced).
   */
  openWatchers(paths: readonly string[], knownError?: unknown): Promise<OpenedWatch>;
  /**
   * Opens exactly one watcher over `paths`.
   *
   * @throws {Error} The open's own error (its name and message kept), or
   *   when the backend stopped.
   */
  openOne(paths: readonly string[], recursive: boolean): Promise<WatchHandle>;
  /** Ends every watcher it opened; resolves once its descriptors are closed. Idempotent. */
  close(): void | Promise<void>;
}

/**
 * A backend opening watchers in this thread with `open` (tests inject
 * openers that fail for a folder; Deno.watchFs here would hold this thread
 * when a FIFO holds Deno's watcher thread, so serving uses the isolate).
 *
 * @param open The opener.
 * @returns The backend.
 */
export function inProcessWatch(open: WatchOpener): WatchBackend {
  return {
    openWatchers: (paths, knownError = null) => {
      try {
        return Promise.resolve(openWatchers(paths, open, knownError));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    openOne: (paths, recursive) => {
      try {
        return Promise.resolve(open([...paths], { recursive }));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    // Live refresh closes each watcher it opened itself.
    close: () => {},
  };
}

/**
 * Opens one recursive watcher over every path when it can (the common case:
 * one watcher), else what {@linkcode planWatch} finds can be watched: a
 * recursive watcher over the folders that can be watched whole and a flat one
 * over the folders split because one of their sub-folders cannot be. A folder
 * that changed between the plan and the open fails it: planned again, at
 * most {@linkcode MAX_OPEN_ATTEMPTS} times, before what is left is lost.
 *
 * @param paths Absolute folders.
 * @param open The opener.
 * @param knownError The error a recursive watch of all `paths` just gave
 *   (not tried again), or null. @default null
 * @returns The watchers, the folders lost and watched flat.
 *
 * Requires `--allow-read` on the paths.
 */
export function openWatchers(
  paths: readonly string[],
  open: WatchOpener,
  knownError: unknown = null,
): OpenedWatch<Deno.FsWatcher> {
  if (paths.length === 0) {
    return { watchers: [], lost: [], flat: [], flatEntries: new Map(), pathCount: 0 };
  }
  let firstError: unknown = knownError;
  try {
    if (firstError !== null) throw firstError;
    return {
      watchers: [open([...paths], { recursive: true })],
      lost: [],
      flat: [],
      flatEntries: new Map(),
      pathCount: paths.length,
    };
  } catch (error) {
    firstError = error ?? new Error("watch failed");
    for (let attempt = 1;; attempt++) {
      // The plan's recursive probes stay open: they are the watchers (each opened once).
      const plan = planWatch(paths, open, { keepOpen: true, firstError });
      firstError = null;
      const watchers: Deno.FsWatcher[] = [...plan.opened];
      const lost = [...plan.lost];
      let failure: unknown = null;
      const opens = batches(plan.flat).map((list) => [list, false] as const);
      for (const [list, recursive] of opens) {
        if (list.length === 0 || (failure !== null && attempt < MAX_OPEN_ATTEMPTS)) continue;
        try {
          watchers.push(open([...list], { recursive }));
        } catch (error) {
          failure = error;
          if (attempt < MAX_OPEN_ATTEMPTS) continue;
          const why = isWatchLimit(error) ? WATCH_LIMIT : errorName(error);
          for (const path of list) lost.push({ root: path, folder: ".", why });
        }
      }
      if (failure !== null && attempt < MAX_OPEN_ATTEMPTS) {
        for (const watcher of watchers) watcher.close();
        continue;
      }
      return {
        watchers,
        lost,
        flat: plan.flat,
        flatEntries: plan.flatEntries,
        pathCount: plan.recursive.length + plan.flat.length,
      };
    }
  }
}

/** Plans (and opens) made at most when a planned watch fails to open (the tree changed). */
export const MAX_OPEN_ATTEMPTS = 3;

/** `paths` in lists of {@linkcode MAX_PATHS_PER_WATCH} at most (one watcher each). */
function batches(paths: readonly string[]): string[][] {
  const lists: string[][] = [];
  for (let at = 0; at < paths.length; at += MAX_PATHS_PER_WATCH) {
    lists.push(paths.slice(at, at + MAX_PATHS_PER_WATCH));
  }
  return lists;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}
