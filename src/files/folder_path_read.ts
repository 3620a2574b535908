/**
 * The trusted part's read of folders an isolate names by real path (the
 * digest isolate's `read-folder-paths`, s11-hC): each folder is opened below
 * the asker's readable root it lies in, no link followed and no mount
 * crossed on the way (`folder_beneath.ts`; review r17, hC-1: this open skips
 * Deno's permission check, so it must not follow what that check would have
 * refused), read through its descriptor only when the kernel places it at
 * exactly the path asked (`readFolderOrBusySync`), and closed before the
 * answer. A root is opened once per batch and closed with it.
 *
 * @module
 */

import {
  type FolderPathRead,
  type FolderPathReadRequest,
  readFolderOrBusySync,
} from "./fd_listing.ts";
import { ERRNO, type FolderOpener, folderOpener } from "./folder_beneath.ts";

/**
 * Reads each folder of `requests` by its path, for an asker that may read
 * `readable`. A path that is not plain and absolute, or lies in none of
 * `readable`, is not opened (null). Otherwise the longest entry of
 * `readable` it lies at or under is opened from `/` without following a
 * link, and the path's rest below it without following a link or crossing
 * a mount: a link anywhere on the way (swapped in), or no folder there now,
 * answers `changed`; a mount crossed answers null (the asker then opens it
 * itself, through Deno's permission check); no descriptor free answers
 * `busy`. A folder opened is read only when the kernel places it at exactly
 * the path (else `changed`). Synchronous: per folder one `openat2` (or one
 * `openat` per name where `openat2` is missing), one `readlink`, one
 * `readdir` (and the asked `lstat`s), one close; per root one open and close.
 * No descriptor outlives the call.
 *
 * Requires `--allow-all` (FFI, and every `/proc` access); without it, or off
 * Linux, answers null for each.
 *
 * @param requests The folders (absolute real paths) and how many entries to stat.
 * @param readable Absolute paths the asker may read (its permission set's
 *   `read`: each root as configured and real).
 * @param opener The opener. @default the trusted part's (`folderOpener()`)
 * @returns One answer per request, in order (see `FolderPathRead`).
 */
export function readFoldersAtPathsSync(
  requests: readonly FolderPathReadRequest[],
  readable: readonly string[],
  opener: FolderOpener | null = folderOpener(),
): FolderPathRead[] {
  if (opener === null) return requests.map(() => null);
  const roots = new Map<string, number>();
  try {
    return requests.map((request) => readOne(request, readable, opener, roots));
  } finally {
    for (const fd of roots.values()) if (fd >= 0) opener.close(fd);
  }
}

/**
 * {@linkcode readFoldersAtPathsSync} for one folder.
 *
 * @param request The folder (its absolute real path) and how many entries to stat.
 * @param readable Absolute paths the asker may read.
 * @param opener The opener. @default the trusted part's
 * @returns See `FolderPathRead`.
 */
export function readFolderAtPathSync(
  request: FolderPathReadRequest,
  readable: readonly string[],
  opener: FolderOpener | null = folderOpener(),
): FolderPathRead {
  return readFoldersAtPathsSync([request], readable, opener)[0] ?? null;
}

function readOne(
  request: FolderPathReadRequest,
  readable: readonly string[],
  opener: FolderOpener,
  roots: Map<string, number>,
): FolderPathRead {
  const { path } = request;
  if (!isPlainAbsolutePath(path)) return null;
  const root = longestContaining(path, readable);
  if (root === null) return null;
  let rootFd = roots.get(root);
  if (rootFd === undefined) {
    rootFd = opener.openRoot(root);
    roots.set(root, rootFd);
  }
  const below = path === root ? "" : path.slice(root === "/" ? 1 : root.length + 1);
  const fd = rootFd < 0 ? rootFd : opener.openBelow(rootFd, below);
  if (fd < 0) return refusal(-fd);
  try {
    const seen: { location: string | null } = { location: null };
    const read = readFolderOrBusySync(
      request.names === undefined
        ? { fd, maxStats: request.maxStats }
        : { fd, maxStats: request.maxStats, names: request.names },
      (location) => {
        seen.location = location;
        return location === path;
      },
      opener.calls,
    );
    if (read !== null) return read;
    // Located somewhere else: changed. Not located at all (no `/proc`), or located there but not
    // read (its `readdir` failed, not for want of a descriptor: that is `busy` above): cannot tell.
    return seen.location === null || seen.location === path ? null : "changed";
  } finally {
    opener.close(fd);
  }
}

/** What an open's errno answers: a link or no folder on the way, no descriptor free, or unknown. */
function refusal(errno: number): FolderPathRead {
  if (errno === ERRNO.ELOOP || errno === ERRNO.ENOENT || errno === ERRNO.ENOTDIR) return "changed";
  if (errno === ERRNO.EMFILE || errno === ERRNO.ENFILE) return "busy";
  return null;
}

/** The longest of `folders` (plain absolute paths) that `path` is, or is under; else null. */
function longestContaining(path: string, folders: readonly string[]): string | null {
  let found: string | null = null;
  for (const listed of folders) {
    // A permission entry may end in a separator (`/srv/skills/`): the same folder.
    const folder = listed.length > 1 && listed.endsWith("/") ? listed.slice(0, -1) : listed;
    if (!isPlainAbsolutePath(folder) && folder !== "/") continue;
    const isIn = path === folder || path.startsWith(folder === "/" ? "/" : `${folder}/`);
    if (isIn && (found === null || folder.length > found.length)) found = folder;
  }
  return found;
}

/** Whether `path` is absolute with no `.`, `..` or empty segment and no trailing `/` (nor NUL). */
function isPlainAbsolutePath(path: string): boolean {
  if (!path.startsWith("/") || path.length < 2 || path.includes("\0")) return false;
  return path.slice(1).split("/").every((segment) =>
    segment !== "" && segment !== "." && segment !== ".."
  );
}
