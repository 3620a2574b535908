/**
 * Discovery's folder reads, exact (session 10, h10): a folder is listed only
 * when the names come from the folder the kernel places at exactly its real
 * path. A path-based `readdir` follows a symlink exchanged in for a folder
 * (or for any folder above it), so a process that can write inside a root
 * could have discovery read an outside folder's sub-folder names (into
 * warnings, or as candidates whose SKILL.md the gate then refuses) and
 * exchange the folder back before any check after it. Here each folder is
 * opened `O_DIRECTORY | O_NOFOLLOW` (`O_PATH` where known) at its real path,
 * read through that descriptor by the folder reader (`src/files/fd_listing.ts`:
 * in an isolate the trusted part's `readdir` of `/proc/self/fd/<fd>`, answered
 * only inside the asker's read permission), and its location, read with the
 * entries, must be exactly that real path; anything else is `changed`, never
 * listed. The same mechanism the file listing uses (review r10), so one rule
 * covers every folder listing of a root-reachable folder.
 *
 * Cost: one open and one close here, and one `readlink` and one `readdir` in
 * the reader; reads asked in one synchronous run (a group folder's
 * sub-folders: {@linkcode readFoldersExactly}) go to the trusted part as one
 * `read-folders` message, so a 10,000-skill discovery makes tens of round
 * trips, not thousands.
 *
 * Where a path reader is installed (`installFolderPathReader`: the serving
 * worker's asks the trusted part, which opens the folder below the asker's
 * root with no link followed and reads it only where the kernel places it at
 * exactly that path, `src/files/folder_path_read.ts`), it is asked first:
 * then this thread opens nothing, and a warm start's discovery never loads
 * `node:fs` (issue 13: ~15 ms). Any answer but such a read (changed, busy,
 * cannot tell) is decided by this thread's own open, as without one.
 *
 * Where no reader can tell (no `/proc`: another OS), the folder is read by
 * path, as before: the fallback the gate and the file listing narrow to there.
 *
 * @module
 */

import { closeDescriptor, loadGateFs, openFolderDescriptor } from "../files/bounded_read.ts";
import { NO_DESCRIPTOR_FREE, retryingOnDescriptorShortage } from "../files/descriptor_shortage.ts";
import {
  type FolderEntry,
  type FolderEntryStat,
  type FolderPathReader,
  type FolderRead,
  type FolderReadAnswer,
  installedFolderPathReader,
  readOpenFolder,
} from "../files/fd_listing.ts";
import { locateFd } from "../files/fd_location.ts";
import { readSortedEntries } from "./_fs.ts";

/**
 * One entry of a folder read exactly. `stat` is present only when the path
 * reader read the folder (the trusted part's `lstat` through the very
 * descriptor the names came from, for the first
 * {@linkcode TOP_FOLDER_STATS} `file` entries in name order that are not
 * quietly skipped; null for any other entry, or one gone since): a skill
 * folder's listing then starts from these entries instead of reading the
 * folder again, and its SKILL.md's version is taken from here (s16).
 */
export interface FolderEntryRead extends Deno.DirEntry {
  readonly stat?: FolderEntryStat | null;
}

/** One folder read exactly: its entries, or `changed` (not at its real path, or not a folder now). */
export type ExactFolderRead =
  | {
    readonly kind: "read";
    readonly entries: FolderEntryRead[];
    /**
     * A skill folder's sub-folders the path reader read with it (s17), by
     * their path below it (`FolderPathReadRequest.subtree`): its listing
     * starts from these instead of asking again. @default not set
     */
    readonly subtree?: Subtree;
  }
  | { readonly kind: "changed" };

/**
 * Sub-folders read with a skill folder, by path below it (plain names joined
 * by `/`). Its one user empties it once the listing took what it needed
 * (`_load_skill.ts`): the reads are not held for the rest of a build.
 */
export type Subtree = Map<string, FolderRead | "changed" | null>;

/**
 * Sub-folders of a skill folder the path reader reads with it at most (s17:
 * a real skill holds 2-5; one with more has the rest read by its listing).
 */
export const SKILL_SUBTREE_FOLDERS = 32;

/**
 * `file` entries of a folder the path reader reads for discovery that get an
 * `lstat` with the names (s16: a skill folder's own files, SKILL.md first
 * among them, so its listing and its warm-start version check need no second
 * read; a root or group folder holds folders, which get none).
 */
export const TOP_FOLDER_STATS = 64;

/** A folder that could not be read at all (missing permission, over the reader's entry bound). */
export class FolderUnreadableError extends Error {
  /**
   * @param reason What went wrong, as a short name (`PermissionDenied`, `NotFound`, `TooManyEntries`).
   */
  constructor(reason: string) {
    super(`Folder cannot be read (${reason})`);
    this.name = reason;
  }
}

/** At most this many folders are open at once in {@linkcode readFoldersExactly} (a bound on descriptors). */
export const MAX_FOLDERS_OPEN = 128;

/**
 * Reads one folder exactly (see the module doc).
 *
 * @param real The folder's absolute real path (no symlink on it, as far as
 *   the caller knows: a root's `realpath`, a real parent plus an entry that
 *   is no symlink, or a followed link's checked `realpath`).
 * @returns Its entries sorted by name (code-unit order), each typed by its
 *   `d_type` (`isSymlink` for a symlink, never followed), or `changed` when
 *   the kernel places the open folder anywhere else, or the path is a
 *   symlink or no folder now.
 * @throws {FolderUnreadableError} When it cannot be opened or read (named
 *   after the cause: `NotFound`, `PermissionDenied`, ..., `TooManyEntries`
 *   past the reader's 65,536 entries).
 *
 * Requires `--allow-read` on the folder, and an installed folder reader that
 * can answer (in an isolate the trusted part's; in a thread with
 * `--allow-all`, the default).
 */
export async function readFolderExactly(real: string): Promise<ExactFolderRead> {
  const [read] = await readFoldersExactly([real]);
  if (read instanceof Error) throw read;
  return read!;
}

/**
 * Reads several folders exactly, as {@linkcode readFolderExactly} each, with
 * their reads asked together (one message to the trusted part for up to
 * {@linkcode MAX_FOLDERS_OPEN} of them; the rest in further groups).
 *
 * @param reals Absolute real paths of folders.
 * @param withSubtree Whether a skill folder's read carries its sub-folders
 *   (`subtree`, s17): only where a listing will start from them. @default true
 * @returns For each, in order: its read, `changed`, or the
 *   {@linkcode FolderUnreadableError} it met (never rejects).
 *
 * Requires what {@linkcode readFolderExactly} does.
 */
export async function readFoldersExactly(
  reals: readonly string[],
  withSubtree = true,
): Promise<(ExactFolderRead | FolderUnreadableError)[]> {
  const byPath = installedFolderPathReader();
  const results: (ExactFolderRead | FolderUnreadableError)[] = [];
  for (let start = 0; start < reals.length; start += MAX_FOLDERS_OPEN) {
    const group = reals.slice(start, start + MAX_FOLDERS_OPEN);
    results.push(...await Promise.all(group.map((real) => readOne(real, byPath, withSubtree))));
  }
  return results;
}

async function readOne(
  real: string,
  byPath: FolderPathReader | null,
  withSubtree: boolean,
): Promise<ExactFolderRead | FolderUnreadableError> {
  // The path reader's read is as exact (the folder it opened, no link followed on the way, placed
  // at exactly `real`); any other answer (changed, busy, cannot tell) is decided by this thread's
  // own open below, as before, so what a missing, swapped or unreadable folder gives is unchanged.
  const located = byPath === null ? null : await readAtPath(real, byPath, withSubtree);
  if (located !== null) return located;
  await loadGateFs();
  let fd: number;
  try {
    fd = await retryingOnDescriptorShortage(() => Promise.resolve(openFolderDescriptor(real)));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // A symlink (or no folder) at the path now: something changed it since its entry was read.
    if (code === "ENOTDIR" || code === "ELOOP") return { kind: "changed" };
    return new FolderUnreadableError(reasonOf(error));
  }
  let answer: FolderReadAnswer;
  try {
    answer = await readOpenFolder({ fd, maxStats: 0 });
  } catch {
    answer = null;
  }
  if (answer === "busy") {
    // The reader's `readdir` had no descriptor free: said so, with what to do, never blamed on
    // the folder (s15: under `ulimit -n` 128-220 this read "TooManyEntries or unreadable"). Not
    // waited for while this descriptor is held: every reader holding one and waiting starved all.
    closeDescriptor(fd);
    return new FolderUnreadableError(NO_DESCRIPTOR_FREE);
  }
  const read = answer;
  if (read !== null) {
    closeDescriptor(fd);
    return read.location === real ? { kind: "read", entries: read.entries.map(dirEntry) } : {
      kind: "changed",
    };
  }
  // No answer: where descriptors can be located at all, the folder was not the asker's to read
  // (its location is outside the roots: exchanged) or could not be read; nothing of it is listed.
  let location: string | null;
  try {
    location = await locateFd(fd);
  } catch {
    location = "";
  } finally {
    closeDescriptor(fd);
  }
  if (location === real) return new FolderUnreadableError("TooManyEntries or unreadable");
  if (location !== null) return { kind: "changed" };
  // Nothing can tell where a descriptor is (no `/proc`): by path, as the listing falls back to.
  try {
    return { kind: "read", entries: readSortedEntries(real) };
  } catch (error) {
    return new FolderUnreadableError(reasonOf(error));
  }
}

/**
 * One folder read by the path reader (no descriptor of this thread's, so no
 * `node:fs` to load: issue 13, a warm start's discovery); null unless it read
 * the folder at exactly `real` with all of its entries.
 */
async function readAtPath(
  real: string,
  reader: FolderPathReader,
  withSubtree: boolean,
): Promise<ExactFolderRead | null> {
  let read;
  try {
    read = await reader({
      path: real,
      maxStats: TOP_FOLDER_STATS,
      ...(withSubtree ? { subtree: SKILL_SUBTREE_FOLDERS } : {}),
    });
  } catch {
    return null;
  }
  if (read === null || typeof read === "string") return null;
  if (read.location !== real || read.tooManyEntries !== undefined) return null;
  const entries = read.entries.map((entry): FolderEntryRead => ({
    ...dirEntry(entry),
    stat: entry.stat,
  }));
  if (read.subtree === undefined) return { kind: "read", entries };
  return {
    kind: "read",
    entries,
    subtree: new Map(read.subtree.map((sub) => [sub.rel, sub.read] as const)),
  };
}

/** A reader's entry as the `Deno.DirEntry` discovery works with (`other`: none of the three). */
function dirEntry(entry: FolderEntry): Deno.DirEntry {
  return {
    name: entry.name,
    isFile: entry.kind === "file",
    isDirectory: entry.kind === "dir",
    isSymlink: entry.kind === "symlink",
  };
}

/** The Deno error class name of an open's or read's error (node's codes mapped), for messages. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "NotFound";
  if (code === "EACCES" || code === "EPERM") return "PermissionDenied";
  if (code === "ENAMETOOLONG") return "NameTooLong";
  if (typeof code === "string") return code;
  return error instanceof Error ? error.name : "Error";
}
