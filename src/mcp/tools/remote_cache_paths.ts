/**
 * Remote sources' cache folders as clients see them: by the source's spec.
 * A remote root's `path` is a folder in skillgate's cache (under the owner's
 * home, naming the revision); `skill_list` shows the root by its spec, and
 * its problems must not name the folder either (house style: client-facing
 * text never echoes host paths outside the skill).
 *
 * @module
 */

import type { Problem } from "../../skills/problem.ts";
import type { Root } from "../../skills/skill.ts";

/**
 * Creates the rewrite of text that may name a remote root's cache folder.
 *
 * @param roots The snapshot's roots; only those with a `source` (remote) count.
 * @returns `(text) => text` with each remote root's folder replaced by its
 *   spec (a trailing `/` of the spec dropped before a sub-path, so
 *   `CACHE/brand/SKILL.md` reads `SPEC/brand/SKILL.md`); the text itself when
 *   no remote root is configured.
 *
 * Source: README "Remote skills" (a remote root is shown by its spec, never
 * its cache folder).
 */
export function remoteCachePathsAsSpecs(roots: readonly Root[]): (text: string) => string {
  // Longest folder first, so a folder inside another is replaced as itself.
  const remote = roots
    .filter((root) => root.source !== undefined && root.path !== "")
    .map((root) => ({ folder: root.path.replace(/\/+$/, ""), spec: root.source as string }))
    .sort((a, b) => b.folder.length - a.folder.length);
  if (remote.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const { folder, spec } of remote) {
      if (!out.includes(folder)) continue;
      const base = spec.replace(/\/+$/, "");
      out = out.split(`${folder}/`).join(`${base}/`).split(folder).join(spec);
    }
    return out;
  };
}

/**
 * Problems as a client may see them: a remote root's cache folder named by
 * the source's spec instead, in `path` and `detail`. Pure.
 *
 * @param problems The problems.
 * @param roots The snapshot's roots.
 * @returns A new list in the same order (the same objects when nothing changes).
 */
export function problemsWithoutCachePaths(
  problems: readonly Problem[],
  roots: readonly Root[],
): Problem[] {
  const rewrite = remoteCachePathsAsSpecs(roots);
  return problems.map((problem) => {
    const path = rewrite(problem.path);
    const detail = rewrite(problem.detail);
    return path === problem.path && detail === problem.detail
      ? problem
      : { ...problem, path, detail };
  });
}
