/**
 * What live refresh can watch when a recursive watch of a root fails: Deno's
 * recursive watcher gives up on the whole path when one folder in it cannot
 * be watched (an unreadable sub-folder: PermissionDenied naming that folder),
 * so one such folder used to turn off live refresh for its whole root. Here a
 * path that fails is split: the folder itself is watched on its own (its
 * entries created, removed, renamed or changed) and each sub-folder is tried
 * again, so only the folders that cannot be watched at all are lost, and
 * they are named (relative to their root) for the warning.
 *
 * @module
 */

import { join, relative } from "node:path";

/** Folders probed at most while splitting (bounds the work when many fail). */
export const MAX_WATCH_PROBES = 4096;

/** How deep under a root splitting goes at most (skills sit one to a few levels down). */
export const MAX_WATCH_SPLIT_DEPTH = 8;

/** A folder live refresh cannot watch. */
export interface LostFolder {
  /** The watched path (root or linked skill folder) it is under. */
  readonly root: string;
  /** The folder relative to `root` ("." for the root itself). */
  readonly folder: string;
  /** Why (the error's name, e.g. `PermissionDenied`), or "limit" past the probe bounds. */
  readonly why: string;
}

/** What to watch: recursively, on their own (entries only), and what is lost. */
export interface WatchPlan {
  readonly recursive: readonly string[];
  /** Folders split because a recursive watch failed: watched without their sub-folders. */
  readonly flat: readonly string[];
  readonly lost: readonly LostFolder[];
}

/** Opens a watcher (Deno.watchFs by default; tests inject one). */
export type WatchOpener = (
  paths: string | string[],
  options: { recursive: boolean },
) => Deno.FsWatcher;

/**
 * Plans the watch of `paths`: each path that a recursive watch accepts is
 * watched so; a path that fails is watched flat and its sub-folders (not
 * symlinks: a linked skill's real folder is in `paths` on its own) are
 * planned in turn, up to {@linkcode MAX_WATCH_SPLIT_DEPTH} levels and
 * {@linkcode MAX_WATCH_PROBES} probes: only the sub-folder holding the path
 * the watcher's error names ({@linkcode namedPaths}); the others are watched
 * recursively unprobed (each probe sets up the kernel's watches over a whole
 * tree). A second unwatchable folder, which that error does not name, makes
 * the final recursive open fail (live_refresh.ts then loses that list until
 * the next refresh).
 *
 * @param paths Absolute folders (roots and linked skills' real folders).
 * @param open The watcher opener. @default Deno.watchFs
 * @returns The plan; `lost` lists each folder not watched, in walk order.
 *
 * Requires `--allow-read` on the paths (watching and listing them).
 */
export function planWatch(
  paths: readonly string[],
  open: WatchOpener = Deno.watchFs,
): WatchPlan {
  const recursive: string[] = [];
  const flat: string[] = [];
  const lost: LostFolder[] = [];
  let probes = 0;

  /** Opens and closes a watcher over `watch`; the error when it fails, else null. */
  const tryOpen = (watch: string | string[], isRecursive: boolean): Error | null => {
    probes++;
    try {
      open(watch, { recursive: isRecursive }).close();
      return null;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };

  const split = (root: string, folder: string, depth: number): void => {
    const lose = (why: string): void => {
      lost.push({ root, folder: relative(root, folder) || ".", why });
    };
    if (probes >= MAX_WATCH_PROBES || depth > MAX_WATCH_SPLIT_DEPTH) return lose("limit");
    const recursiveError = tryOpen(folder, true);
    if (recursiveError === null) return void recursive.push(folder);
    const flatError = tryOpen(folder, false);
    if (flatError !== null) return lose(flatError.name);
    let children: string[];
    try {
      children = [...Deno.readDirSync(folder)]
        .filter((entry) => entry.isDirectory && !entry.isSymlink)
        .map((entry) => join(folder, entry.name))
        .sort();
    } catch (error) {
      return lose(error instanceof Error ? error.name : "Error");
    }
    flat.push(folder);
    // Deno's watcher names the path it could not watch: only the sub-folder holding it is split,
    // its siblings are watched recursively without a probe each (r7 review: a probe per sibling,
    // each setting up the kernel's watches over its tree, held the thread ~7 s at 6,000 skills
    // and ran out of probes, leaving ~1,900 readable folders unwatched). Without a named path
    // under this folder, each sub-folder is probed on its own.
    const named = namedPaths(recursiveError).filter((path) => path.startsWith(`${folder}/`));
    for (const child of children) {
      const isNamed = named.some((path) => path === child || path.startsWith(`${child}/`));
      if (named.length > 0 && !isNamed) recursive.push(child);
      else split(root, child, depth + 1);
    }
  };

  for (const path of paths) split(path, path, 0);
  return { recursive: recursive.sort(), flat, lost };
}

/**
 * The paths a watcher error names: Deno's message ends with
 * `about ["/path", ...]` (e.g. `Permission denied (os error 13) about
 * ["/root/skills/locked"]`). Empty when it names none.
 *
 * @param error A `Deno.watchFs` error.
 * @returns The named absolute paths.
 */
export function namedPaths(error: Error): string[] {
  const match = /about (\[.*\])\s*$/s.exec(error.message);
  if (match === null) return [];
  try {
    const parsed: unknown = JSON.parse(match[1]!);
    return Array.isArray(parsed) ? parsed.filter((item) => typeof item === "string") : [];
  } catch {
    return [];
  }
}
