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
  type FolderEntry,
  type FolderPathRead,
  type FolderPathReadRequest,
  type FolderRead,
  type FolderReadRequest,
  MAX_SUBTREE_FOLDERS,
  readFolderOrBusySync,
  type SubfolderRead,
} from "./fd_listing.ts";
import { ERRNO, type FolderOpener, folderOpener } from "./folder_beneath.ts";
import { isQuietlySkippedName } from "./served_name.ts";

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
 * A request's `subtree` (below a folder holding `SKILL.md`) reads that many
 * sub-folders more the same way, each opened by one name below its parent's
 * descriptor, at most {@linkcode SUBTREE_FOLDERS_PER_BATCH} and
 * {@linkcode SUBTREE_STATS_PER_BATCH} `lstat`s in them per call.
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
  const budget = { folders: SUBTREE_FOLDERS_PER_BATCH, stats: SUBTREE_STATS_PER_BATCH };
  try {
    return requests.map((request) => readOne(request, readable, opener, roots, budget));
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

/**
 * Sub-folders read below skill folders in one batch at most (`subtree`, s17:
 * a bound on how long one message holds the trusted thread; the asker reads
 * the rest itself).
 */
export const SUBTREE_FOLDERS_PER_BATCH = 1_024;
/** `lstat`s taken in those sub-folders in one batch at most. */
export const SUBTREE_STATS_PER_BATCH = 8_192;

/** What is left of one batch's sub-folder bounds. */
interface SubtreeBudget {
  folders: number;
  stats: number;
}

function readOne(
  request: FolderPathReadRequest,
  readable: readonly string[],
  opener: FolderOpener,
  roots: Map<string, number>,
  budget: SubtreeBudget,
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
  const fd = rootFd < 0 ? rootFd : opener.openBelowToRead(rootFd, below);
  if (fd < 0) return refusal(-fd);
  try {
    const read = readOpened(
      path,
      request.names === undefined
        ? { fd, maxStats: request.maxStats }
        : { fd, maxStats: request.maxStats, names: request.names },
      opener,
    );
    const wanted = Math.min(request.subtree ?? 0, MAX_SUBTREE_FOLDERS);
    if (
      typeof read !== "object" || read === null || read.tooManyEntries !== undefined ||
      request.names !== undefined || wanted < 1 ||
      !read.entries.some((entry) => entry.name === "SKILL.md")
    ) {
      return read;
    }
    const subtree: SubfolderRead[] = [];
    const left = { folders: Math.min(wanted, budget.folders), stats: budget.stats };
    readBelow(fd, path, "", read.entries, request.maxStats, opener, left, subtree);
    budget.folders -= Math.min(wanted, budget.folders) - left.folders;
    budget.stats = left.stats;
    return { ...read, subtree };
  } finally {
    opener.close(fd);
  }
}

/**
 * Reads the open folder `what.fd` (opened by the caller to read, closed by
 * it after) exactly: only where the kernel places it at exactly `path`;
 * `changed` where it places it elsewhere; `busy` for want of a descriptor;
 * null when it cannot be told.
 */
function readOpened(
  path: string,
  what: FolderReadRequest,
  opener: FolderOpener,
): FolderRead | "changed" | "busy" | null {
  const seen: { location: string | null } = { location: null };
  const read = readFolderOrBusySync(
    what,
    (location) => {
      seen.location = location;
      return location === path;
    },
    opener.calls,
    true,
  );
  if (read !== null) return read;
  // Located somewhere else: changed. Not located at all (no `/proc`), or located there but not
  // read (its `readdir` failed, not for want of a descriptor: that is `busy` above): cannot tell.
  return seen.location === null || seen.location === path ? null : "changed";
}

/**
 * Reads the sub-folders of the open folder `fd` (at `path`, `rel` below the
 * skill folder; `entries` its read) depth first in name order, as a skill's
 * walk reaches them, into `out`, while `left` allows. Each is opened below
 * `fd` by its one name (no link followed, no mount crossed) and read by
 * {@linkcode readOpened} at exactly `path/name`; its descriptor is held only
 * while its own sub-folders are read. No descriptor free ends the whole
 * subtree (the asker reads what is missing).
 */
function readBelow(
  fd: number,
  path: string,
  rel: string,
  entries: readonly FolderEntry[],
  maxStats: number,
  opener: FolderOpener,
  left: SubtreeBudget,
  out: SubfolderRead[],
): void {
  for (const entry of entries) {
    // Past either bound no further sub-folder is read: one without its files' stats would cost
    // its listing a round trip a file (review r17 F1), more than reading it when reached.
    if (left.folders < 1 || left.stats < 1) return;
    if (entry.kind !== "dir" || isQuietlySkippedName(entry.name)) continue;
    left.folders--;
    const childPath = `${path}/${entry.name}`;
    const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const childFd = opener.openBelowToRead(fd, entry.name);
    if (childFd < 0) {
      const refused = refusal(-childFd);
      if (refused === "busy") {
        left.folders = 0;
        return;
      }
      out.push({ rel: childRel, read: refused === "changed" ? "changed" : null });
      continue;
    }
    try {
      const read = readOpened(
        childPath,
        { fd: childFd, maxStats: Math.max(0, Math.min(maxStats, left.stats)) },
        opener,
      );
      if (read === "busy") {
        left.folders = 0;
        return;
      }
      out.push({ rel: childRel, read });
      if (typeof read !== "object" || read === null || read.tooManyEntries !== undefined) continue;
      for (const child of read.entries) if (child.stat !== null) left.stats--;
      readBelow(childFd, childPath, childRel, read.entries, maxStats, opener, left, out);
    } finally {
      opener.close(childFd);
    }
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
