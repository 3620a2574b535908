/**
 * The catch-up check of a watch set up after the catalog was built (issue
 * 13: a small catalog's watcher starts after the first `initialize` answer,
 * off that answer's path). What changed between the build and the moment the
 * watch is live must still be served; a rescan of the roots sees a new or
 * removed skill folder and every listed file whose version (device, inode,
 * size, mtime, ctime) moved (`rebuild_catalog.ts`), but not an entry added to
 * or removed from a skill's own folders (the skill lists no such file). Those
 * show in the folders' status change time, which no owner can set back: a
 * skill any of whose folders changed since the build began is loaded again.
 *
 * @module
 */

import type { Catalog } from "../skills/skill.ts";

/**
 * How far before the build's start a folder's change time still counts as a
 * change, in ms: the kernel stamps times from a coarse clock (a few ms behind
 * `Date.now()`), and a spurious reload costs one skill's read.
 */
export const CATCH_UP_SLACK_MS = 1_000;

/**
 * Folders looked at per skill before the check gives up and loads the skill
 * again anyway (a deep tree costs a stat per folder; the listing's own caps
 * bound what a reload reads).
 */
export const MAX_FOLDERS_PER_SKILL = 256;

/**
 * The skill folders (`skill.dir`) to load again after a late watch: those
 * whose folder or any sub-folder (dot-folders and `node_modules` excepted,
 * as the listing skips them) had its status change at or after
 * `sinceMs - CATCH_UP_SLACK_MS`, or could not be looked at.
 *
 * @param catalog The snapshot served (the build's result).
 * @param sinceMs When the build began, in ms since the epoch (`Date.now()`
 *   taken before discovery).
 * @returns Absolute skill folder paths, in catalog order (possibly none).
 *
 * Requires `--allow-read` on the roots (and linked skills' real folders).
 */
export function skillsChangedSince(catalog: Catalog, sinceMs: number): string[] {
  const sinceCtimeMs = sinceMs - CATCH_UP_SLACK_MS;
  return catalog.skills
    .filter((skill) => folderTreeChangedSince(skill.dir, sinceCtimeMs))
    .map((skill) => skill.dir);
}

/** Whether `dir` or a folder under it changed at or after `sinceCtimeMs` (true when unsure). */
function folderTreeChangedSince(dir: string, sinceCtimeMs: number): boolean {
  const pending = [dir];
  let seen = 0;
  while (pending.length > 0) {
    const folder = pending.pop()!;
    if (++seen > MAX_FOLDERS_PER_SKILL) return true;
    try {
      const info = Deno.statSync(folder);
      if (!info.isDirectory) return true;
      const changedMs = Math.max(info.ctime?.getTime() ?? Infinity, info.mtime?.getTime() ?? 0);
      if (changedMs >= sinceCtimeMs) return true;
      for (const entry of Deno.readDirSync(folder)) {
        if (!entry.isDirectory || entry.name.startsWith(".") || entry.name === "node_modules") {
          continue;
        }
        pending.push(`${folder}/${entry.name}`);
      }
    } catch {
      return true;
    }
  }
  return false;
}
