/**
 * The folders live refresh watches: every root, plus the real folder of each
 * skill reached through a symlink (a recursive watch of the root does not
 * reliably descend through links, and events in the target arrive under its
 * real path).
 *
 * @module
 */

import { join, relative } from "node:path";
import type { Catalog } from "../skills/skill.ts";

/**
 * Lists the folders to watch for a snapshot.
 *
 * @param catalog The snapshot being served.
 * @returns Distinct absolute paths, sorted: the local roots (as configured)
 *   and the real folders of skills whose real path differs from where their
 *   lexical path would put them under their root's real path. Remote
 *   sources are never watched (their changes arrive as new roots).
 *
 * Requires `--allow-read` on the roots (realpath of each root).
 */
export async function watchPaths(catalog: Catalog): Promise<string[]> {
  const paths = new Set<string>();
  const rootReals = new Map<string, string | null>();
  for (const root of catalog.roots) {
    // A remote source's copy never changes in place: a new commit arrives as new roots.
    if (root.from === "remote") continue;
    paths.add(root.path);
    try {
      rootReals.set(root.path, await Deno.realPath(root.path));
    } catch {
      rootReals.set(root.path, null);
    }
  }
  for (const skill of catalog.skills) {
    if (skill.source !== undefined) continue;
    const rootReal = rootReals.get(skill.root) ?? null;
    const expected = rootReal === null ? null : join(rootReal, relative(skill.root, skill.dir));
    if (expected !== skill.realDir) paths.add(skill.realDir);
  }
  return [...paths].sort();
}

/**
 * What the watch isolate may read: each local root as configured and its
 * real path (a subset of the serving worker's own read set). Remote roots
 * are never watched.
 *
 * @param catalog The snapshot being served.
 * @returns Distinct absolute paths.
 *
 * Requires `--allow-read` on the roots (realpath).
 */
export async function isolateReadPaths(catalog: Catalog): Promise<string[]> {
  const paths: string[] = [];
  for (const root of catalog.roots) {
    if (root.from === "remote") continue;
    paths.push(root.path);
    try {
      paths.push(await Deno.realPath(root.path));
    } catch {
      // Not there now: its watch is lost and named like any other.
    }
  }
  return [...new Set(paths)];
}
