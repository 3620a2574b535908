/**
 * One index cache folder per set of roots (review r16, A4). Every skillgate of
 * a user shares the configured cache folder (`~/.cache/skillgate/index` by
 * default), and a serving worker reads and writes its index cache: were that
 * the whole shared folder, a worker taken over through the client input it
 * handles could read another server's entries (real paths, descriptions,
 * declarations of roots it may not read) and forge them (a description and a
 * script declaration that server would then serve as its own). So each set of
 * roots gets a sub-folder of its own, made and checked by the trusted part,
 * and the worker's read and write permission is exactly that sub-folder.
 * Servers of the very same roots share one (their entries are the same
 * skills' entries).
 *
 * @module
 */

import type { Config } from "./config.ts";
import { plannedRealPath, rootAround } from "./index_cache_dir.ts";

/**
 * The cache's name for a set of roots: `skills-` and a 64-bit FNV-1a hash
 * (two 32-bit lanes, 16 hex digits) of their paths joined by NUL. A
 * collision costs a rebuild only: entries are keyed by full path.
 *
 * @param rootPaths The roots' paths as configured, in order (`Config.roots`).
 * @returns `skills-` followed by 16 lower-case hex digits.
 */
export function indexCacheKeyOf(rootPaths: readonly string[]): string {
  const rootsKey = rootPaths.join("\0");
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < rootsKey.length; i++) {
    const code = rootsKey.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x811c9dc5) >>> 0;
  }
  return `skills-${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}

/**
 * The configuration with its index cache folder narrowed to this set of
 * roots' own sub-folder (`<configured>/<indexCacheKeyOf(roots)>`), once the
 * roots are final (remote sources' roots included). Unchanged when there is
 * no cache, or when the configured folder is, holds or lies inside a root:
 * the start-up checks then refuse it as configured, with the same warning
 * as before (a sub-folder beside the roots would pass them, against the
 * owner's rule that the cache folder stays outside the roots). The trusted
 * part then creates and checks that sub-folder (`prepareIndexCacheDir`);
 * `serve` and `permissions` both call this, so the set `permissions` prints
 * is the one `serve` starts.
 *
 * @param config The configuration, roots final.
 * @returns The same configuration, `indexCacheDir` narrowed.
 *
 * Requires `--allow-read` (the real paths of the folder's existing part and
 * of the roots); the trusted part holds it.
 */
export function withRootsIndexCache(config: Config): Config {
  if (config.indexCacheDir === null) return config;
  const rootReals = config.roots.flatMap((root) => {
    try {
      return [Deno.realPathSync(root.path)];
    } catch {
      return [];
    }
  });
  if (rootAround(plannedRealPath(config.indexCacheDir), rootReals) !== null) return config;
  const key = indexCacheKeyOf(config.roots.map((root) => root.path));
  return { ...config, indexCacheDir: `${config.indexCacheDir.replace(/\/+$/, "")}/${key}` };
}
