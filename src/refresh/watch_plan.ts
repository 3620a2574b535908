/**
 * What live refresh can watch when a recursive watch of a root fails: Deno's
 * recursive watcher gives up on the whole path when one folder in it cannot
 * be watched (an unreadable sub-folder: PermissionDenied `about ["<folder>"]`),
 * so one such folder used to turn off live refresh for its whole root. Here
 * the watch is split along the folder the error names: its ancestors up to the
 * watched path are watched flat (their entries created, removed, renamed or
 * changed), it is lost, and everything else is tried again in ONE recursive
 * watch, repeated while another folder is named. Only when the error names no
 * folder under a watched path is each sub-folder probed on its own. Only the
 * folders that cannot be watched at all are lost, each named (relative to its
 * root) for the warning.
 *
 * Plan only while no other watcher over these paths is open: Deno (2.9.6)
 * shares one inotify instance per process, and closing (or failing to open) a
 * watcher removes the watches of its folders from every other watcher over
 * them, which then sees no event there again (r7, session 6). The plan's own
 * probes are closed before the watchers they overlap are opened.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";

/** Watches opened at most while planning (bounds the work when many folders fail). */
export const MAX_WATCH_PROBES = 1024;

/**
 * Paths given to one recursive watch at most: Deno's watcher is superlinear in
 * the paths of one call (measured as nobody, r7: 250 paths 38 ms, 2,000 2.2 s,
 * 6,000 ~24 s), so a split root's thousands of sub-folders go in batches.
 */
export const MAX_PATHS_PER_WATCH = 200;

/** A folder live refresh cannot watch. */
export interface LostFolder {
  /** The watched path (root or linked skill folder) it is under. */
  readonly root: string;
  /** The folder relative to `root` ("." for the root itself). */
  readonly folder: string;
  /** Why (the error's name, e.g. `PermissionDenied`), or "limit" past the probe bound. */
  readonly why: string;
}

/** What to watch: recursively, on their own (entries only), and what is lost. */
export interface WatchPlan {
  readonly recursive: readonly string[];
  /** Folders split because a recursive watch failed: watched without their sub-folders. */
  readonly flat: readonly string[];
  readonly lost: readonly LostFolder[];
  /**
   * With `keepOpen`: the watchers over `recursive` (batches), left open by the
   * plan's own successful probes, so the caller need not open them again.
   */
  readonly opened: readonly Deno.FsWatcher[];
  /**
   * The sub-folders (not symlinks) each `flat` folder had when planned, sorted:
   * a change to them is what a re-plan is for.
   */
  readonly flatEntries: ReadonlyMap<string, readonly string[]>;
}

/** Opens a watcher (Deno.watchFs in the watch isolate; tests inject one). */
export type WatchOpener = (
  paths: string | string[],
  options: { recursive: boolean },
) => Deno.FsWatcher;

/**
 * Plans the watch of `paths` (see the module comment). Sub-folders that are
 * symlinks are not followed (a linked skill's real folder is in `paths` on its
 * own).
 *
 * @param paths Absolute folders (roots and linked skills' real folders).
 * @param open The watcher opener (Deno.watchFs in the watch isolate only:
 *   `watch_entry.ts`).
 * @param options `keepOpen`: keep the successful recursive probes open (in
 *   `opened`; the caller closes them) instead of closing them. `firstError`:
 *   the error a recursive watch of all `paths` (at most
 *   {@linkcode MAX_PATHS_PER_WATCH}) just gave, so it is not tried again.
 * @returns The plan; `lost` lists each folder not watched.
 *
 * Requires `--allow-read` on the paths (watching and listing them).
 */
export function planWatch(
  paths: readonly string[],
  open: WatchOpener,
  options: { readonly keepOpen?: boolean; readonly firstError?: unknown } = {},
): WatchPlan {
  const opened: Deno.FsWatcher[] = [];
  let firstError = paths.length <= MAX_PATHS_PER_WATCH ? options.firstError ?? null : null;
  const recursive: string[] = [];
  const flat: string[] = [];
  const lost: LostFolder[] = [];
  const flatEntries = new Map<string, readonly string[]>();
  /** Folders still to watch recursively, each with the watched path it is under. */
  const candidates = paths.map((path) => ({ root: path, folder: path }));
  let probes = 0;
  const lose = (root: string, folder: string, why: string) =>
    void lost.push({ root, folder: relative(root, folder) || ".", why });
  let isLimitReached = false;
  const tryOpen = (target: string | string[], isRecursive: boolean): unknown => {
    probes++;
    try {
      const watcher = open(target, { recursive: isRecursive });
      // A recursive watch that holds is one of the plan's watchers (opened once).
      if (isRecursive && options.keepOpen === true) opened.push(watcher);
      else watcher.close();
      return null;
    } catch (error) {
      if (isWatchLimit(error)) isLimitReached = true;
      return error ?? new Error("watch failed");
    }
  };
  /** Watches `folder` flat and makes its sub-folders but `except` candidates; false if it cannot. */
  const splitOne = (root: string, folder: string, except: string | null): boolean => {
    const error = tryOpen(folder, false);
    let children: string[] = [];
    if (error === null) {
      try {
        children = [...Deno.readDirSync(folder)]
          .filter((entry) => entry.isDirectory && !entry.isSymlink)
          .map((entry) => join(folder, entry.name));
      } catch (readError) {
        lose(root, folder, errorName(readError));
        return false;
      }
    } else {
      lose(root, folder, errorName(error));
      return false;
    }
    flat.push(folder);
    children.sort();
    flatEntries.set(folder, children);
    for (const child of children) {
      if (child !== except) candidates.push({ root, folder: child });
    }
    return true;
  };

  while (candidates.length > 0) {
    if (isLimitReached || isWatchLimit(firstError)) break;
    if (probes >= MAX_WATCH_PROBES) {
      for (const { root, folder } of candidates) lose(root, folder, "limit");
      break;
    }
    const batch = candidates.slice(0, MAX_PATHS_PER_WATCH);
    let error: unknown = firstError;
    firstError = null;
    if (error === null) {
      probes++;
      try {
        const watcher = open(batch.map((candidate) => candidate.folder), { recursive: true });
        if (options.keepOpen === true) opened.push(watcher);
        else watcher.close();
      } catch (caught) {
        error = caught ?? new Error("watch failed");
      }
    }
    if (isWatchLimit(error)) {
      isLimitReached = true;
      break;
    }
    if (error === null) {
      recursive.push(...batch.map((candidate) => candidate.folder));
      candidates.splice(0, batch.length);
      continue;
    }
    const named = namedFolder(error);
    const at = named === null
      ? -1
      : batch.findIndex(({ folder }) => named === folder || named.startsWith(`${folder}/`));
    if (at === -1) {
      // No folder under a candidate named: each candidate on its own, split where it fails.
      candidates.splice(0, batch.length);
      for (const candidate of batch) {
        if (probes >= MAX_WATCH_PROBES) lose(candidate.root, candidate.folder, "limit");
        else if (tryOpen(candidate.folder, true) === null) recursive.push(candidate.folder);
        else splitOne(candidate.root, candidate.folder, null);
      }
      // The sub-folders of the split ones are tried again in the next round.
      continue;
    }
    const { root, folder } = candidates[at]!;
    candidates.splice(at, 1);
    const why = errorName(error);
    if (named === folder) {
      // The candidate itself: watched flat if it can be (its sub-folders tried again), else lost.
      const unwatchable = tryOpen(folder, false);
      if (unwatchable !== null) lose(root, folder, why);
      else splitOne(root, folder, null);
      continue;
    }
    // The ancestors from the candidate down to the named folder's parent are watched flat.
    const chain: string[] = [];
    for (let up = dirname(named!); up !== folder && up.startsWith(`${folder}/`); up = dirname(up)) {
      chain.unshift(up);
    }
    chain.unshift(folder);
    let isSplit = true;
    for (const [i, ancestor] of chain.entries()) {
      if (!splitOne(root, ancestor, chain[i + 1] ?? named)) {
        isSplit = false;
        break;
      }
    }
    if (isSplit) lose(root, named!, why);
  }
  if (isLimitReached || isWatchLimit(firstError)) {
    // The user's watch limit is no property of the folder an error names: splitting along it
    // meets the limit again at the next folder (r9: 2,000 folders, 30 s, a line each). Nothing
    // is watched; every path is lost once, as "WatchLimit".
    for (const watcher of opened) watcher.close();
    return {
      recursive: [],
      flat: [],
      lost: paths.map((path) => ({ root: path, folder: ".", why: WATCH_LIMIT })),
      opened: [],
      flatEntries: new Map(),
    };
  }
  return { recursive, flat, lost, opened, flatEntries };
}

/** The `why` of a {@linkcode LostFolder} lost to the user's inotify watch limit. */
export const WATCH_LIMIT = "WatchLimit";

/**
 * Whether `error` is the user's inotify watch limit (Deno 2.9.6: "OS file
 * watch limit reached"; ENOSPC from inotify_add_watch otherwise), which is
 * shared by all of the user's processes (`fs.inotify.max_user_watches`).
 *
 * @param error What a watch open threw.
 * @returns True for the limit, false for anything else (null included).
 */
export function isWatchLimit(error: unknown): boolean {
  return error instanceof Error &&
    /watch limit reached|No space left on device|os error 28\b/i.test(error.message);
}

/** The folder a watch error names (`about ["<path>"]`), or null. */
function namedFolder(error: unknown): string | null {
  const message = error instanceof Error ? error.message : "";
  const match = /about \["((?:[^"\\]|\\.)*)"\]/.exec(message);
  if (match === null) return null;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return null;
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}
