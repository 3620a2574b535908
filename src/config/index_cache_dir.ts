/**
 * The trusted part's start-up step for the index cache folder: create it
 * (owner-only) and check it is a real folder of this user that nobody else
 * may write, before it goes on the worker's read and write list. It never
 * reads what is inside (the worker alone does, `src/skills/index_cache.ts`).
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { groupHoldsOthers } from "./group_members.ts";

/**
 * Creates and checks the index cache folder.
 *
 * @param dir The configured folder (absolute), or null for none.
 * @param rootRealPaths The skill roots' real paths (local and remote): a
 *   cache folder that is, holds or lies inside one is not used (the worker
 *   would get write permission on skills, and its cache files would be served
 *   as a skill's files). @default none
 * @returns The folder to use, or null with a one-line warning (inside or
 *   around a skill root, foreign,
 *   writable by others, a symlink, under a folder another user could swap it
 *   in, or cannot be created): skillgate then runs without a cache.
 *
 * Requires `--allow-read`, `--allow-write` on the folder and `--allow-sys`
 * (`Deno.uid`); the trusted part holds `--allow-all`.
 */
export function prepareIndexCacheDir(
  dir: string | null,
  rootRealPaths: readonly string[] = [],
): { dir: string | null; warning: string | null } {
  if (dir === null) return { dir: null, warning: null };
  const ignored = (why: string) => ({
    dir: null,
    warning: `the index cache folder ${why}; running without it (see --index-cache, ` +
      "--no-index-cache)",
  });
  if (hasDotDotSegment(dir)) {
    // Where `..` leads depends on links the kernel follows while `mkdir -p` runs; no plan of it
    // is exact, so nothing is made (review r15, H5: `missing/../link/cache` made a folder in a root).
    return ignored(
      `path ${dir} holds a ".." segment; give it without ".." (the real path of the folder meant)`,
    );
  }
  try {
    // Refused before anything is made: a refused folder inside a root must leave the root as it
    // was (review r12, F8); checked again on the real path once it exists.
    const planned = rootAround(plannedRealPath(dir), rootRealPaths);
    if (planned !== null) return ignored(rootProblem(planned));
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const problem = cacheFolderProblem(dir, rootRealPaths);
    if (problem !== null) return ignored(problem);
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
 * Whether a path holds a `..` segment (`/a/../b`, `a/..`): such a cache
 * folder is refused before anything is made, since where `..` leads depends
 * on the links `mkdir -p` follows on the way (review r15, H5).
 *
 * @param path A path as given.
 * @returns True when one of its `/`-separated segments is `..`.
 */
export function hasDotDotSegment(path: string): boolean {
  return path.split("/").includes("..");
}

/**
 * Why a cache folder skillgate trusts what it reads from (the index cache,
 * the remote sources cache) must not be used, or null when it may: it must
 * be a real folder (not a symlink) of this user that no other user may write,
 * not at or around a skill root, and not under a folder where another user
 * could rename it away and put their own in its place
 * ({@linkcode swappableAncestor}). One rule for every such folder (review
 * r14, H1: the sources cache had none of these checks).
 *
 * @param dir The folder (it exists; absolute).
 * @param rootRealPaths The skill roots' real paths. @default none
 * @returns A clause for a warning or problem ("belongs to another user",
 *   "may be written by other users", ...), or null.
 * @throws Deno.errors from lstat/realpath when the folder cannot be read.
 *
 * Requires `--allow-read` on the folder and its ancestors, and `--allow-sys`
 * (`Deno.uid`); the trusted part holds `--allow-all`.
 */
export function cacheFolderProblem(
  dir: string,
  rootRealPaths: readonly string[] = [],
): string | null {
  const info = Deno.lstatSync(dir);
  if (info.isSymlink || !info.isDirectory) return "is not a folder (or is a symlink)";
  const uid = Deno.uid();
  if (uid !== null && info.uid !== null && info.uid !== uid) return "belongs to another user";
  if (info.mode !== null && (info.mode & 0o022) !== 0) return "may be written by other users";
  const real = Deno.realPathSync(dir);
  const root = rootAround(real, rootRealPaths);
  if (root !== null) return rootProblem(root);
  const unsafe = swappableAncestor(real, uid);
  if (unsafe !== null) {
    return `lies under ${unsafe}, where another user could put a folder of theirs in its place`;
  }
  return null;
}

/**
 * The real path a folder would have once created, resolved the way the
 * kernel will resolve it for `mkdir`: segment by segment from `/`, each
 * existing one through its real path, so a `..` after a symlink goes to the
 * parent of the link's target, not to the folder holding the link (review
 * r13: `/x/link/..` was taken lexically for `/x`). From the first segment that
 * does not exist on, the rest is joined lexically: `mkdir` makes those as
 * plain folders, where `..` means the folder just made.
 *
 * @param dir A path; a relative one is taken from the current folder.
 * @returns The absolute real path it would have.
 *
 * Requires `--allow-read` on the ancestors (realpath).
 */
export function plannedRealPath(dir: string): string {
  const absolute = dir.startsWith("/") ? dir : `${Deno.cwd()}/${dir}`;
  const segments = absolute.split("/").filter((segment) => segment !== "" && segment !== ".");
  let at = "/";
  for (const [index, segment] of segments.entries()) {
    // `at` is a real path here, so its `..` is its lexical parent.
    if (segment === "..") {
      at = dirname(at);
      continue;
    }
    try {
      at = Deno.realPathSync(at === "/" ? `/${segment}` : `${at}/${segment}`);
    } catch {
      return resolve(at, ...segments.slice(index));
    }
  }
  return at;
}

/**
 * The first folder above `realDir` in which another user could rename the
 * folder (or one above it) away and put their own in its place, or null when
 * there is none: every ancestor must belong to root or this user; one that
 * everyone may write must carry the sticky bit (as `/tmp` does, where only an
 * entry's owner may rename it); one its group may write must carry the
 * sticky bit unless that group holds no other user (a user private group,
 * where `umask 002` makes every new folder group-writable: Debian and
 * Ubuntu's default for such groups). The rule `ssh` applies to `~/.ssh`'s
 * ancestors (StrictModes).
 *
 * @param realDir The folder's real path.
 * @param uid This process's user id (null: not known, nothing is refused).
 * @returns The offending ancestor's path, or null.
 *
 * Requires `--allow-read` on the ancestors (lstat) and on `/etc/passwd` and
 * `/etc/group` (a group that cannot be read counts as shared).
 */
export function swappableAncestor(realDir: string, uid: number | null): string | null {
  if (uid === null) return null;
  let path = realDir;
  while (path !== "/" && path !== "") {
    path = path.slice(0, path.lastIndexOf("/")) || "/";
    const info = Deno.lstatSync(path);
    if (info.uid !== null && info.uid !== 0 && info.uid !== uid) return path;
    const mode = info.mode ?? 0;
    if ((mode & 0o1000) !== 0) continue;
    if ((mode & 0o002) !== 0) return path;
    if ((mode & 0o020) !== 0 && (info.gid === null || groupHoldsOthers(info.gid, uid))) {
      return path;
    }
  }
  return null;
}

/**
 * The skill root the folder is, holds or lies inside, or null.
 *
 * @param realDir A folder's real path.
 * @param rootRealPaths The skill roots' real paths.
 * @returns The first such root, or null.
 */
export function rootAround(realDir: string, rootRealPaths: readonly string[]): string | null {
  const within = (outer: string, inner: string) =>
    inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
  return rootRealPaths.find((root) => within(root, realDir) || within(realDir, root)) ?? null;
}

/**
 * The warning's reason for an index cache folder at a skill root.
 *
 * @param root The root it is, holds or lies inside.
 * @returns A clause for {@linkcode prepareIndexCacheDir}'s warning.
 */
export function rootProblem(root: string): string {
  return `is, holds or lies inside the skill root ${root} (skillgate would write among skills, ` +
    "and serve its cache as skill files); point --index-cache (or XDG_CACHE_HOME) outside the " +
    "skill roots";
}

/**
 * {@linkcode rootAround} on real paths: the skill root a cache folder is,
 * holds or lies inside, or null. Roots or a folder that cannot be resolved
 * are left out (a missing root is reported by the root check).
 *
 * @param dir The cache folder (it exists).
 * @param rootPaths The configured local roots' paths.
 * @returns The root's real path, or null.
 *
 * Requires `--allow-read` on the folders (realpath); the trusted part holds it.
 */
export function cacheAtRoot(dir: string, rootPaths: readonly string[]): string | null {
  const real = (path: string) => {
    try {
      return Deno.realPathSync(path);
    } catch {
      return null;
    }
  };
  const realDir = real(dir);
  if (realDir === null) return null;
  return rootAround(realDir, rootPaths.flatMap((path) => real(path) ?? []));
}
