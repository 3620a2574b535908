/**
 * Reading an open folder through its descriptor: its entries and each
 * entry's `lstat`, taken from the very folder the descriptor holds, wherever
 * it was renamed or swapped since, and the kernel's path for it
 * (`/proc/self/fd/<fd>`). A path-based `readdir` walks the path again and
 * follows a symlink exchanged in for a folder, so a process that can write
 * inside a root could make the listing read an outside folder's names, sizes
 * and mtimes and exchange the folder back before any check after it (review
 * r10); a descriptor cannot be redirected: `/proc/self/fd/<fd>` is the kernel's
 * link to the open folder itself, not a path resolved again.
 *
 * Reading `/proc` needs Deno's `--allow-all` (even with `/proc/self/fd` in a
 * worker's read list: measured, Deno 2.9.6), which no isolate holds, so an
 * isolate installs a reader that asks the trusted part (same process, same
 * descriptor table) over postMessage (`src/sandbox/fd_locate_client.ts`).
 * Where no reader can answer (another OS, no `/proc`), the answer is `null`
 * and the listing falls back to its path-based walk (see
 * `src/skills/_list_files.ts`).
 *
 * @module
 */

import { isDescriptorShortage } from "./descriptor_shortage.ts";
import { isQuietlySkippedName } from "./served_name.ts";

/** An entry's `lstat`, as far as the listing needs it (times in ms since the epoch). */
export interface FolderEntryStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  /** Size in bytes. */
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
  readonly dev: number;
  readonly ino: number | null;
}

/** A folder entry's name and kind, as `readdir` gave them. */
export interface ListedName {
  readonly name: string;
  readonly kind: FolderEntry["kind"];
}

/**
 * A folder's entries as listed, in the kernel's order: at most
 * {@linkcode MAX_FOLDER_READ_ENTRIES} in `read`, and `count` of all of them
 * (counting stops at {@linkcode MAX_FOLDER_COUNTED_ENTRIES}).
 */
export interface ListedNames {
  /** Sorted in place by the reader. */
  readonly read: ListedName[];
  readonly count: number;
}

/**
 * The two calls a folder read makes, done directly on the descriptor by the
 * trusted part (`src/files/folder_calls_native.ts`, over its libc binding)
 * instead of through `/proc/self/fd/<fd>` with Deno's `readDirSync` and
 * `lstatSync` (s16: 38 -> 24 us a folder at 10,000 skills, same answers).
 */
export interface FolderCalls {
  /**
   * The entries of the open folder `fd` (never `.` or `..`), named as
   * Deno's `readDirSync` names them (UTF-8, invalid bytes replaced by
   * U+FFFD), each kind from its `d_type` (an `lstat` where the file system
   * gives none); or `-errno` when the folder cannot be read (`-EMFILE` or
   * `-ENFILE` for want of a descriptor). The read opens a descriptor of its
   * own on the folder (`openat(fd, ".")`), never moving `fd`'s offset;
   * except with `isOwnOpen` (the caller opened `fd` to read, at its start,
   * and closes it after this read): then `fd` itself is read where it can
   * be (s17: an open and a close a folder fewer). @default isOwnOpen false
   */
  list(fd: number, isOwnOpen?: boolean): ListedNames | number;
  /**
   * `name`'s `lstat` in the open folder `fd`, with the numbers Deno's
   * `lstatSync` gives (ms truncated; ctime in whole seconds, as Deno 2.9.6
   * reports it); null when it cannot be taken.
   */
  lstatAt(fd: number, name: string): FolderEntryStat | null;
}

/** One entry of a folder read through its descriptor. */
export interface FolderEntry {
  readonly name: string;
  /** What `readdir` said it is (its `d_type`, or an `lstat` where the file system gives none). */
  readonly kind: "file" | "dir" | "symlink" | "other";
  /**
   * Its `lstat` through the descriptor, for `file` entries the request asked
   * for (see {@linkcode FolderReadRequest.maxStats}); null when not taken or
   * gone since.
   */
  readonly stat: FolderEntryStat | null;
}

/** A folder read through its descriptor. */
export interface FolderRead {
  /** The kernel's path for the open folder when it was read. */
  readonly location: string;
  /** Every entry, sorted by name in code-unit order (none when `tooManyEntries` is set). */
  readonly entries: readonly FolderEntry[];
  /**
   * Set when the folder holds more than {@linkcode MAX_FOLDER_READ_ENTRIES}
   * entries, which one read does not carry: how many it holds, counted up to
   * {@linkcode MAX_FOLDER_COUNTED_ENTRIES} (that number means "at least").
   * The listing then reports the folder with this count and what to do,
   * rather than as unreadable. @default not set
   */
  readonly tooManyEntries?: number;
  /**
   * The sub-folders read with it (only in a path read's answer, when its
   * request asked for them: {@linkcode FolderPathReadRequest.subtree}).
   * @default not set
   */
  readonly subtree?: readonly SubfolderRead[];
}

/**
 * One sub-folder read with a skill folder ({@linkcode FolderPathReadRequest.subtree}),
 * exactly as the folder itself: its read only where the kernel places it at
 * exactly the folder's path, `/`, and `rel`.
 */
export interface SubfolderRead {
  /** Its path below the folder asked: plain names joined by `/`. */
  readonly rel: string;
  /** Its read (never itself carrying a subtree), `changed`, or null (cannot tell: ask again). */
  readonly read: FolderRead | "changed" | null;
}

/** Sub-folders one path read may ask for below a skill folder at most. */
export const MAX_SUBTREE_FOLDERS = 64;

/** What to read of one open folder. */
export interface FolderReadRequest {
  /** An OS file descriptor of this process, open on a folder (`O_PATH` will do). */
  readonly fd: number;
  /**
   * At most this many `file` entries get an `lstat`, the first in name order
   * that are not quietly skipped (dot-entries, `node_modules`): the walk
   * stops at its file cap, so nothing far past it is ever stat'ed. When more
   * than 0, a `SKILL.md` or `skill.md` file entry gets one too, wherever it
   * sorts (r16 F4).
   */
  readonly maxStats: number;
  /**
   * When given, only these entries are stat'ed (a later look at entries the
   * first read left without a stat) and `entries` holds only them, kind
   * `file`, in this order; a name that is not a plain entry name has none.
   */
  readonly names?: readonly string[];
}

/**
 * One open folder's read: the read; `busy` when this process had no
 * descriptor free to read it (`EMFILE`, `ENFILE`: a moment's shortage, ask
 * again once one is free, never a property of the folder); null when it
 * cannot be told (not open, not a folder, not the asker's to read, no
 * `/proc`, another error).
 */
export type FolderReadAnswer = FolderRead | "busy" | null;

/** Reads open folders (see {@linkcode FolderReadAnswer}). */
export type FolderReader = (request: FolderReadRequest) => Promise<FolderReadAnswer>;

/**
 * What to read of one folder named by its real path: the reader opens it
 * itself (the trusted part: below the asker's root, no link followed and no
 * mount crossed, `folder_path_read.ts`), reads it through that descriptor
 * and closes it (s11-hC: the trusted part's open costs no Deno permission
 * check, an isolate's ~14 us of `readlink`s a path).
 */
export interface FolderPathReadRequest {
  /** The folder's absolute real path: no `.`, `..` or empty segment, no trailing `/`. */
  readonly path: string;
  /** As {@linkcode FolderReadRequest.maxStats}. */
  readonly maxStats: number;
  /** As {@linkcode FolderReadRequest.names}. */
  readonly names?: readonly string[];
  /**
   * When given (1 to {@linkcode MAX_SUBTREE_FOLDERS}) and the folder read
   * holds an entry named `SKILL.md`: its sub-folders are read too, at most
   * this many, in the order a skill's file walk reaches them (depth first,
   * names in code-unit order; `dir` entries only, never a symlink, a
   * dot-entry or `node_modules`), each opened below its parent's descriptor
   * with no link followed and no mount crossed, read with `maxStats`, and
   * answered in `subtree` (s17: a skill's listing then asks nothing more, one
   * round trip a skill instead of one a level). The reader may read fewer
   * (a bound per message, no descriptor free): the asker reads any it
   * lacks itself. Ignored with `names`. @default none
   */
  readonly subtree?: number;
}

/**
 * A folder read by path: its read (its location exactly the path asked);
 * `changed` when a symlink is at the path or anywhere on the way, or no
 * folder is there now, or the kernel places the opened folder anywhere else;
 * `busy` when no descriptor was free for the open (ask again later); null
 * when it cannot be told (not the asker's to read, a mount crossed below the
 * asker's root, no `/proc`, another error): the asker then reads it through
 * a descriptor of its own (Deno's permission check included).
 */
export type FolderPathRead = FolderRead | "changed" | "busy" | null;

/** Reads folders by their real paths (see {@linkcode FolderPathReadRequest}). */
export type FolderPathReader = (request: FolderPathReadRequest) => Promise<FolderPathRead>;

let installedPathReader: FolderPathReader | null = null;

/**
 * Installs the reader of folders by path (the digest isolate installs one
 * that asks the trusted part), or removes it (null: the default; every
 * folder is then opened by the asker and read through its descriptor).
 *
 * @param reader The reader, or null.
 */
export function installFolderPathReader(reader: FolderPathReader | null): void {
  installedPathReader = reader;
}

/**
 * The installed reader of folders by path.
 *
 * @returns It, or null when none is installed.
 */
export function installedFolderPathReader(): FolderPathReader | null {
  return installedPathReader;
}

/** Entries one folder read answers at most (a bound on one message; more: `tooManyEntries`). */
export const MAX_FOLDER_READ_ENTRIES = 65_536;

/** How far a folder over {@linkcode MAX_FOLDER_READ_ENTRIES} is counted, to report its size. */
export const MAX_FOLDER_COUNTED_ENTRIES = 16 * MAX_FOLDER_READ_ENTRIES;

let installed: FolderReader = (request) => Promise.resolve(readFolderOrBusySync(request));

/**
 * Replaces the folder reader (an isolate installs one that asks the trusted part).
 *
 * @param reader The new reader.
 */
export function installFolderReader(reader: FolderReader): void {
  installed = reader;
}

/**
 * Reads an open folder with the installed reader.
 *
 * @param request The descriptor and how many entries to stat.
 * @returns Its location and entries, `busy` when no descriptor was free to
 *   read it, or null when it cannot be told here.
 */
export function readOpenFolder(request: FolderReadRequest): Promise<FolderReadAnswer> {
  return installed(request);
}

/**
 * {@linkcode readFolderDirectlySync} behind a promise (a thread with
 * `--allow-all` reading folders itself: tests). The installed default,
 * which {@linkcode readOpenFolder} uses, also answers `busy`.
 *
 * @param request The descriptor and how many entries to stat.
 * @returns As {@linkcode readFolderDirectlySync}.
 */
export function readFolderDirectly(request: FolderReadRequest): Promise<FolderRead | null> {
  return Promise.resolve(readFolderDirectlySync(request));
}

/**
 * Reads the folder open on `request.fd` in this thread through
 * `/proc/self/fd/<fd>`: its location (one `readlink`, first), its entries
 * (`readdir` of the descriptor's folder) and each asked entry's `lstat`
 * (`/proc/self/fd/<fd>/<name>`: the name looked up in that folder, its last
 * component not followed). One location is enough: the entries are the open
 * folder's own wherever it sits, and it sat at that path when asked; a
 * folder moved out and back meanwhile holds what anyone who could write it
 * there could have written inside.
 *
 * Requires `--allow-all` (every `/proc` access does); without it, or off
 * Linux, answers null.
 *
 * @param request The descriptor and how many entries to stat.
 * @param isReadable Whether a folder at this location may be read for the
 *   asker (checked before its entries are). @default always
 * @param calls The trusted part's direct calls (`folderOpener().calls`),
 *   which read the same entries and stats for less (s16); null reads through
 *   `/proc/self/fd/<fd>` with Deno's own calls. @default null
 * @returns Its location and entries (over {@linkcode MAX_FOLDER_READ_ENTRIES}
 *   entries: none, and `tooManyEntries`); null when it cannot be read here
 *   (not a safe non-negative descriptor, not open, not a folder, no `/proc`,
 *   or not readable).
 */
export function readFolderDirectlySync(
  request: FolderReadRequest,
  isReadable: (location: string) => boolean = () => true,
  calls: FolderCalls | null = null,
): FolderRead | null {
  const read = readFolderOrBusySync(request, isReadable, calls);
  return read === "busy" ? null : read;
}

/**
 * {@linkcode readFolderDirectlySync}, telling a descriptor shortage apart:
 * the `readdir` of `/proc/self/fd/<fd>` opens a descriptor of its own, so
 * under a low `ulimit -n`, while other reads hold theirs, it can fail for a
 * moment with `EMFILE` (or `ENFILE`). That is answered `busy`, never null,
 * so the asker waits for a free descriptor and asks again rather than
 * reporting the folder unreadable (which left skills or their files out of
 * the catalog, with a warning that blamed the folder: s15).
 *
 * Requires `--allow-all`, as {@linkcode readFolderDirectlySync}.
 *
 * @param request The descriptor and how many entries to stat.
 * @param isReadable Whether a folder at this location may be read for the
 *   asker. @default always
 * @param calls As {@linkcode readFolderDirectlySync}. @default null
 * @param isOwnOpen Whether the caller opened `fd` itself to read it and
 *   closes it after (`FolderCalls.list`; never for an isolate's descriptor).
 *   @default false
 * @returns As {@linkcode readFolderDirectlySync}, or `busy` when the read
 *   (its `readdir`) met `EMFILE` or `ENFILE`.
 */
export function readFolderOrBusySync(
  request: FolderReadRequest,
  isReadable: (location: string) => boolean = () => true,
  calls: FolderCalls | null = null,
  isOwnOpen = false,
): FolderReadAnswer {
  const { fd } = request;
  if (!Number.isSafeInteger(fd) || fd < 0) return null;
  const at = `/proc/self/fd/${fd}`;
  const lstat = calls === null
    ? (name: string) => statAt(at, name)
    : (name: string) => calls.lstatAt(fd, name);
  try {
    const location = Deno.readLinkSync(at);
    if (!isReadable(location)) return null;
    const entries: FolderEntry[] = [];
    if (request.names !== undefined) {
      for (const name of request.names.slice(0, MAX_FOLDER_READ_ENTRIES)) {
        entries.push({ name, kind: "file", stat: isPlainName(name) ? lstat(name) : null });
      }
    } else {
      const listed = calls === null ? listThroughProc(at) : calls.list(fd, isOwnOpen);
      if (typeof listed === "number") return isShortageErrno(listed) ? "busy" : null;
      const { read, count } = listed;
      if (count > MAX_FOLDER_READ_ENTRIES) return { location, entries: [], tooManyEntries: count };
      read.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      let stats = 0;
      for (const { name, kind } of read) {
        const counted = kind === "file" && stats < request.maxStats && !isQuietlySkippedName(name);
        if (counted) stats++;
        // A skill's SKILL.md always (review r16 F4: past 64 files sorting before it, a warm start
        // read the folder again for its version).
        const wanted = counted ||
          kind === "file" && request.maxStats > 0 && (name === "SKILL.md" || name === "skill.md");
        entries.push({ name, kind, stat: wanted ? lstat(name) : null });
      }
    }
    return { location, entries };
  } catch (error) {
    return isDescriptorShortage(error) ? "busy" : null;
  }
}

/**
 * `name`'s `lstat` in the open folder `fd`, through its `/proc/self/fd` link
 * with Deno's `lstatSync` (what {@linkcode FolderCalls.lstatAt} answers the
 * same way for less).
 *
 * Requires `--allow-all` (every `/proc` access does).
 *
 * @param fd An OS file descriptor of this process, open on a folder.
 * @param name One entry name (no separator).
 * @returns Its stat, or null when it cannot be taken.
 */
export function lstatThroughProc(fd: number, name: string): FolderEntryStat | null {
  return statAt(`/proc/self/fd/${fd}`, name);
}

/** Deno's `readDirSync` of the descriptor's `/proc/self/fd` link (throws as it does). */
function listThroughProc(at: string): ListedNames {
  const read: ListedName[] = [];
  let count = 0;
  for (const entry of Deno.readDirSync(at)) {
    count++;
    if (count > MAX_FOLDER_READ_ENTRIES) {
      if (count >= MAX_FOLDER_COUNTED_ENTRIES) break;
      continue;
    }
    read.push({ name: entry.name, kind: kindOf(entry) });
  }
  return { read, count };
}

/** `EMFILE` (this process's descriptors) or `ENFILE` (the system's), as a `-errno` answer. */
function isShortageErrno(negativeErrno: number): boolean {
  return negativeErrno === -24 || negativeErrno === -23;
}

/** Whether `name` is one folder entry's name (no separator, not `.` or `..`). */
function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") &&
    !name.includes("\0");
}

function kindOf(entry: Deno.DirEntry): FolderEntry["kind"] {
  if (entry.isSymlink) return "symlink";
  if (entry.isDirectory) return "dir";
  if (entry.isFile) return "file";
  return "other";
}

/** `lstat` of `name` in the folder at `at`, or null when it is gone. */
function statAt(at: string, name: string): FolderEntryStat | null {
  try {
    const info = Deno.lstatSync(`${at}/${name}`);
    return {
      isFile: info.isFile,
      isDirectory: info.isDirectory,
      isSymlink: info.isSymlink,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      ctimeMs: info.ctime?.getTime() ?? null,
      dev: info.dev,
      ino: info.ino,
    };
  } catch {
    return null;
  }
}
