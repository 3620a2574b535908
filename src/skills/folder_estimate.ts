/**
 * A quick estimate of how many skill folders the roots hold, from one
 * `readdir` per root and per container (issue 13): the worker decides from it
 * whether to answer `initialize` before the catalog is walked, so a large
 * catalog's first answer costs O(1) file-system calls instead of one per
 * folder. It is only a size hint: nothing it reads is served, and discovery
 * walks every folder afterwards as always.
 *
 * @module
 */

import { readSortedEntries } from "./_fs.ts";
import { isSkippedEntryName } from "./names.ts";
import { SKILL_CONTAINERS } from "./discover.ts";
import type { Root } from "./skill.ts";

/**
 * Estimates the folders a full discovery would examine first: a root that is
 * a skill counts 1; otherwise the sub-folders of the root and of its
 * `skills/`, `.claude/skills/` and `.agents/skills/` containers. Where the
 * file system counts sub-folders in a folder's link count (ext4, xfs, tmpfs:
 * 2 + sub-folders), that costs one `stat` per folder; elsewhere (a link count
 * under 2, as btrfs reports) one `readdir`, counting sub-folders and symlinks
 * that are not skipped (dot-folders, `node_modules`). Group folders count
 * once, not by their contents, and a container that is a symlink is not
 * counted (the walk checks where it leads): a hint of the size, not of the
 * skills served. Unreadable roots count 0. Never throws.
 *
 * @param roots The configured roots.
 * @returns The estimate, 0 or more.
 *
 * Requires `--allow-read` on the roots (only the roots and their containers
 * are stat'ed or listed).
 */
export function estimateSkillFolders(roots: readonly Root[]): number {
  let total = 0;
  for (const root of roots) {
    if (root.isUnavailable === true) continue;
    if (isFile(`${root.path}/SKILL.md`) || isFile(`${root.path}/skill.md`)) {
      total += 1;
      continue;
    }
    let count = subfolderCount(root.path);
    for (const relative of SKILL_CONTAINERS) {
      const path = `${root.path}/${relative}`;
      try {
        // A container reached through a symlink is left to the walk (it checks where it leads).
        if (!Deno.lstatSync(path).isDirectory) continue;
      } catch {
        continue;
      }
      // The container itself is one of the root's sub-folders: count its contents instead.
      if (!relative.includes("/")) count--;
      count += subfolderCount(path);
    }
    total += Math.max(count, 0);
  }
  return total;
}

function isFile(path: string): boolean {
  try {
    return Deno.lstatSync(path).isFile;
  } catch {
    return false;
  }
}

/** A folder's sub-folders: from its link count when the file system keeps it, else listed. */
function subfolderCount(path: string): number {
  try {
    const links = Deno.statSync(path).nlink ?? 0;
    if (links >= 2) return links - 2;
    let count = 0;
    for (const entry of readSortedEntries(path)) {
      if ((entry.isDirectory || entry.isSymlink) && !isSkippedEntryName(entry.name)) count++;
    }
    return count;
  } catch {
    return 0;
  }
}
