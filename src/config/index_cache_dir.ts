/**
 * The trusted part's start-up step for the index cache folder: create it
 * (owner-only) and check it is a real folder of this user that nobody else
 * may write, before it goes on the worker's read and write list. It never
 * reads what is inside (the worker alone does, `src/skills/index_cache.ts`).
 *
 * @module
 */

/**
 * Creates and checks the index cache folder.
 *
 * @param dir The configured folder (absolute), or null for none.
 * @returns The folder to use, or null with a one-line warning (foreign,
 *   writable by others, a symlink, under a folder another user could swap it
 *   in, or cannot be created): skillgate then runs without a cache.
 *
 * Requires `--allow-read`, `--allow-write` on the folder and `--allow-sys`
 * (`Deno.uid`); the trusted part holds `--allow-all`.
 */
export function prepareIndexCacheDir(
  dir: string | null,
): { dir: string | null; warning: string | null } {
  if (dir === null) return { dir: null, warning: null };
  const ignored = (why: string) => ({
    dir: null,
    warning: `the index cache folder ${why}; running without it (see --index-cache, ` +
      "--no-index-cache)",
  });
  try {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = Deno.lstatSync(dir);
    if (info.isSymlink || !info.isDirectory) return ignored("is not a folder (or is a symlink)");
    const uid = Deno.uid();
    if (uid !== null && info.uid !== null && info.uid !== uid) {
      return ignored("belongs to another user");
    }
    if (info.mode !== null && (info.mode & 0o022) !== 0) {
      return ignored("may be written by other users");
    }
    const unsafe = swappableAncestor(Deno.realPathSync(dir), uid);
    if (unsafe !== null) {
      return ignored(
        `lies under ${unsafe}, where another user could put a folder of theirs in its place`,
      );
    }
    return { dir, warning: null };
  } catch (error) {
    // mkdir over a file says AlreadyExists (or NotADirectory for a file above it): say so.
    if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
      return ignored(
        `${dir} is a file (or lies under one), not a folder; pass a folder to --index-cache ` +
          "(one that does not exist yet is created)",
      );
    }
    return ignored(`cannot be created (${error instanceof Error ? error.name : "error"})`);
  }
}

/**
 * The first folder above `realDir` in which another user could rename the
 * cache folder (or one above it) away and put their own in its place, or
 * null when there is none: every ancestor must belong to root or this user,
 * and one that others may write must carry the sticky bit (as `/tmp` does,
 * where only an entry's owner may rename it). The rule `ssh` applies to
 * `~/.ssh`'s ancestors (StrictModes).
 *
 * @param realDir The cache folder's real path.
 * @param uid This process's user id (null: not known, nothing is refused).
 * @returns The offending ancestor's path, or null.
 *
 * Requires `--allow-read` on the ancestors (lstat).
 */
function swappableAncestor(realDir: string, uid: number | null): string | null {
  if (uid === null) return null;
  let path = realDir;
  while (path !== "/" && path !== "") {
    path = path.slice(0, path.lastIndexOf("/")) || "/";
    const info = Deno.lstatSync(path);
    if (info.uid !== null && info.uid !== 0 && info.uid !== uid) return path;
    const mode = info.mode ?? 0;
    if ((mode & 0o022) !== 0 && (mode & 0o1000) === 0) return path;
  }
  return null;
}
