/**
 * The trusted part's direct folder calls (s16): a folder's entries by
 * `getdents64` on a descriptor of its own (`openat(fd, ".")`) and an entry's
 * `lstat` by `statx(fd, name, AT_SYMLINK_NOFOLLOW)`, over the one libc
 * binding (`src/refresh/inotify/libc.ts`). They answer what Deno's
 * `readDirSync` and `lstatSync` of `/proc/self/fd/<fd>` answer (names, kinds
 * and the stat numbers are compared in `tests/files/folder_calls_native_test.ts`),
 * without the `/proc` lookups and Deno's conversions: 38 -> 24 us a folder
 * over the 36,667 folders of a 10,000-skill catalog (the rest is the kernel's
 * open and `getdents64`). Every folder read of the trusted part uses them:
 * the isolates' `read-folders` and `read-folder-paths`, and the inotify walk.
 *
 * The numbers follow Deno 2.9.6 exactly, since the index cache compares
 * identities read both ways: `mtimeMs` is whole ms since the epoch, truncated
 * toward it (also for a time before it); `ctimeMs` whole seconds
 * times 1000, null at or before the epoch; `dev` is glibc's `makedev` of the
 * major and minor numbers, as Rust's `st_dev`.
 *
 * Source: getdents(2), statx(2), inode(7) (the `S_IF*` types).
 *
 * @module
 */

import type { Libc } from "../refresh/inotify/libc.ts";
import { STATX_BYTES } from "../refresh/inotify/libc.ts";
import {
  type FolderCalls,
  type FolderEntry,
  type FolderEntryStat,
  type ListedName,
  type ListedNames,
  MAX_FOLDER_COUNTED_ENTRIES,
  MAX_FOLDER_READ_ENTRIES,
} from "./fd_listing.ts";

const O_RDONLY = 0;
const O_DIRECTORY = 0o200000;
const O_CLOEXEC = 0o2000000;
/** `statx` answered, or no number for this architecture / an old kernel. */
const ENOSYS = 38;
/** The `stx_mask` bits a stat needs: type, mode, ino, size, mtime, ctime. */
const NEEDED_MASK = 0x1 | 0x2 | 0x100 | 0x200 | 0x40 | 0x80;
/** `d_type` values (dirent.h). */
const DT_UNKNOWN = 0;
const DT_DIR = 4;
const DT_REG = 8;
const DT_LNK = 10;
/** `S_IFMT` and the types (inode(7)). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** Bytes asked of one `getdents64` call (a folder of ~1,000 short names in one call). */
const DIRENT_BUFFER_BYTES = 32 * 1024;

const decoder = new TextDecoder();
/** `getdents64` on a descriptor not open to read (`O_PATH`). */
const EBADF = 9;

/**
 * The direct folder calls over a loaded libc.
 *
 * @param libc The trusted part's libc binding (`openLibc()`).
 * @param fallback How an entry is stat'ed when `statx` cannot answer
 *   (`-ENOSYS`, or a file system that leaves a needed field out): the caller's
 *   Deno `lstat` through `/proc/self/fd/<fd>/<name>`.
 * @returns The calls. They hold one buffer each, so they are for one thread
 *   (the trusted part's): synchronous, nothing runs between a call and its parse.
 *
 * Requires `--allow-ffi` (held through `libc`) and, for `fallback`, `--allow-all`.
 */
export function nativeFolderCalls(
  libc: Libc,
  fallback: (fd: number, name: string) => FolderEntryStat | null,
): FolderCalls {
  const dirents = new Uint8Array(DIRENT_BUFFER_BYTES);
  const direntView = new DataView(dirents.buffer);
  const statx = new Uint8Array(STATX_BYTES);
  const statxView = new DataView(statx.buffer);
  let hasStatx = true;

  const lstatAt = (fd: number, name: string): FolderEntryStat | null => {
    if (!hasStatx) return fallback(fd, name);
    const answer = libc.statxNoFollow(fd, name, statx);
    if (answer === -ENOSYS) {
      hasStatx = false;
      return fallback(fd, name);
    }
    if (answer < 0) return null;
    if ((statxView.getUint32(0, true) & NEEDED_MASK) !== NEEDED_MASK) return fallback(fd, name);
    return statOf(statxView);
  };

  const kindAt = (fd: number, name: string): FolderEntry["kind"] => {
    const stat = lstatAt(fd, name);
    if (stat === null) return "other";
    return stat.isSymlink ? "symlink" : stat.isDirectory ? "dir" : stat.isFile ? "file" : "other";
  };

  return {
    list(fd, isOwnOpen = false) {
      // A descriptor of the caller's own, open to read and closed after this read, is read
      // directly (its offset moves); any other (an O_PATH one, an isolate's) through one of ours.
      const direct = isOwnOpen ? readNames(fd) : -EBADF;
      if (direct !== -EBADF) return direct;
      const own = libc.openAt(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (own < 0) return own;
      try {
        return readNames(own);
      } finally {
        libc.close(own);
      }
    },
    lstatAt,
  };

  /** The names `getdents64` gives from `fd`'s offset to its end, or `-errno`. */
  function readNames(own: number): ListedNames | number {
    const read: ListedName[] = [];
    let count = 0;
    for (;;) {
      const bytes = libc.getdents64(own, dirents);
      if (bytes < 0) return bytes;
      if (bytes === 0) break;
      // struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
      for (let at = 0; at < bytes;) {
        const length = direntView.getUint16(at + 16, true);
        const type = dirents[at + 18] ?? DT_UNKNOWN;
        const nameEnd = dirents.indexOf(0, at + 19);
        const name = decoder.decode(
          dirents.subarray(at + 19, nameEnd < 0 ? at + length : nameEnd),
        );
        at += length;
        if (name === "." || name === "..") continue;
        count++;
        if (count > MAX_FOLDER_READ_ENTRIES) continue;
        read.push({ name, kind: kindOfType(type) ?? kindAt(own, name) });
      }
      if (count >= MAX_FOLDER_COUNTED_ENTRIES) break;
    }
    return { read, count: Math.min(count, MAX_FOLDER_COUNTED_ENTRIES) };
  }
}

/** The kind a `d_type` names, or null when the file system gave none (`DT_UNKNOWN`). */
function kindOfType(type: number): FolderEntry["kind"] | null {
  if (type === DT_REG) return "file";
  if (type === DT_DIR) return "dir";
  if (type === DT_LNK) return "symlink";
  return type === DT_UNKNOWN ? null : "other";
}

/** The stat in a filled `struct statx`, with Deno 2.9.6's numbers (see the module). */
function statOf(view: DataView): FolderEntryStat {
  const mode = view.getUint16(28, true) & S_IFMT;
  const devMajor = view.getUint32(136, true);
  const devMinor = view.getUint32(140, true);
  const ctimeS = Number(view.getBigInt64(96, true));
  return {
    isFile: mode === S_IFREG,
    isDirectory: mode === S_IFDIR,
    isSymlink: mode === S_IFLNK,
    size: Number(view.getBigUint64(40, true)),
    mtimeMs: distanceToEpochMs(Number(view.getBigInt64(112, true)), view.getUint32(120, true)),
    ctimeMs: ctimeS > 0 ? ctimeS * 1000 : null,
    dev: makedev(devMajor, devMinor),
    ino: Number(view.getBigUint64(32, true)),
  };
}

/**
 * A `statx_timestamp` as Deno 2.9.6 reports it: whole ms since the epoch
 * (truncated), and for a time before it minus its whole ms before the epoch.
 */
function distanceToEpochMs(seconds: number, nanoseconds: number): number {
  if (seconds >= 0) return seconds * 1000 + Math.floor(nanoseconds / 1e6);
  // -floor((-seconds * 1e9 - nanoseconds) / 1e6), without leaving the integers a double holds.
  return -(-seconds * 1000 - Math.ceil(nanoseconds / 1e6));
}

/** glibc's `makedev`: the `st_dev` number of a major and minor device number. */
function makedev(major: number, minor: number): number {
  return ((major & 0xfffff000) >>> 0) * 2 ** 32 + (major & 0xfff) * 2 ** 8 +
    ((minor & 0xffffff00) >>> 0) * 2 ** 12 + (minor & 0xff);
}
