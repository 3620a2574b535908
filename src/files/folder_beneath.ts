/**
 * Opens a folder by its real path without following any symlink on the way
 * and without leaving the mount of the root it lies in, for the trusted part
 * (review r17, hC-1). The trusted part holds `--allow-all`, so its opens skip
 * Deno's permission check, which resolves a path and refuses an outside
 * target: a plain open of a path an isolate named would follow a link
 * swapped in on the way (to an automount under `/net`, a FUSE folder) and
 * open that on the trusted thread, synchronously, even though the read after
 * it is refused by the location check. Here:
 *
 * - the root is opened from `/` with `openat2(RESOLVE_NO_SYMLINKS |
 *   RESOLVE_NO_MAGICLINKS)` (a real path holds no link; mounts above a root
 *   are the owner's);
 * - the rest below the held root descriptor with `openat2(RESOLVE_BENEATH |
 *   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)`: a link
 *   anywhere is refused (`ELOOP`) before it is followed, a mount crossed is
 *   refused (`EXDEV`) before anything inside it is looked up.
 *
 * Where `openat2` is missing (Linux before 5.6: `ENOSYS`; a seccomp filter:
 * `EPERM`), the same walk is made one name at a time with
 * `openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW)`, each step's mount
 * (`mnt_id` in `/proc/self/fdinfo/<fd>`) compared with the root's below it.
 * Every descriptor is `O_PATH | O_CLOEXEC`, but for a folder opened to read
 * its entries (`openBelowToRead`: `O_RDONLY | O_DIRECTORY | O_CLOEXEC`): no
 * file's content is read and no script inherits one.
 *
 * libc is reached through the one binding (`src/refresh/inotify/libc.ts`,
 * Deno's FFI); only the trusted part, which holds `--allow-all`, can load it;
 * an isolate's permission set holds no `ffi`.
 *
 * Source: openat2(2), openat(2), proc(5) (`/proc/pid/fdinfo`).
 *
 * @module
 */

import { type Libc, openLibc } from "../refresh/inotify/libc.ts";
import { type FolderCalls, lstatThroughProc } from "./fd_listing.ts";
import { nativeFolderCalls } from "./folder_calls_native.ts";

const AT_FDCWD = -100;
const O_DIRECTORY = 0o200000;
const O_NOFOLLOW = 0o400000;
const O_CLOEXEC = 0o2000000;
const O_PATH = 0o10000000;
const FOLDER_FLAGS = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
/** A folder opened to read its entries (`O_RDONLY` is 0): no content of any file is read. */
const READ_FOLDER_FLAGS = O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
const RESOLVE_NO_XDEV = 0x01;
const RESOLVE_NO_MAGICLINKS = 0x02;
const RESOLVE_NO_SYMLINKS = 0x04;
const RESOLVE_BENEATH = 0x08;

/** errno values this module answers or reads (Linux, x86_64 and aarch64). */
export const ERRNO = Object.freeze({
  ENOENT: 2,
  EPERM: 1,
  EINVAL: 22,
  ENOTDIR: 20,
  EXDEV: 18,
  ELOOP: 40,
  EMFILE: 24,
  ENFILE: 23,
  ENOSYS: 38,
});

/** Opens folders below a root without following links; every answer is a descriptor or `-errno`. */
export interface FolderOpener {
  /**
   * Opens the folder at `realPath` (absolute, plain segments) from `/`, no
   * link followed on the way (mounts may be crossed).
   */
  openRoot(realPath: string): number;
  /**
   * Opens `relative` (plain segments joined by `/`; `""` for the root
   * itself) below `rootFd`: no link followed, never above `rootFd`, no mount
   * crossed (`-EXDEV`).
   */
  openBelow(rootFd: number, relative: string): number;
  /**
   * As {@linkcode FolderOpener.openBelow}, but open to read the folder's
   * entries (`O_RDONLY`, s17: a read then needs no second open of its own)
   * where `openat2` answers; an `O_PATH` descriptor where it does not.
   */
  openBelowToRead(rootFd: number, relative: string): number;
  /** Closes a descriptor it opened. */
  close(fd: number): void;
  /** Whether `openat2` answers here (else the one-name-at-a-time walk). */
  readonly usesOpenat2: boolean;
  /**
   * The folder reads' direct calls over the same binding
   * (`folder_calls_native.ts`): every folder read of the trusted part passes
   * them to `readFolderOrBusySync`.
   */
  readonly calls: FolderCalls;
}

/** Options of {@linkcode loadFolderOpener}. */
export interface FolderOpenerOptions {
  /** Try `openat2` first (tests turn it off to run the walk). @default true */
  readonly tryOpenat2?: boolean;
}

let shared: FolderOpener | null | undefined;

/**
 * The trusted part's opener, loaded once on first use.
 *
 * @returns It, or null off Linux, without `--allow-ffi`, or when no libc
 *   loads (the caller then opens nothing itself and says it cannot tell).
 *
 * Requires `--allow-ffi` (the trusted part's `--allow-all`).
 */
export function folderOpener(): FolderOpener | null {
  if (shared === undefined) shared = loadFolderOpener();
  return shared;
}

/**
 * Loads libc and returns a new opener.
 *
 * @param options Whether to try `openat2`. @default { tryOpenat2: true }
 * @returns The opener, or null off Linux, without `--allow-ffi`, or when no
 *   libc loads.
 *
 * Requires `--allow-ffi`, and `--allow-read` of `/proc/self/fdinfo` for the
 * walk (the trusted part's `--allow-all`).
 */
export function loadFolderOpener(options: FolderOpenerOptions = {}): FolderOpener | null {
  const libc = openLibc();
  return libc === null ? null : openerOver(libc, options.tryOpenat2 ?? true);
}

/** The opener over a loaded libc. */
function openerOver(libc: Libc, tryOpenat2: boolean): FolderOpener {
  let hasOpenat2 = tryOpenat2;
  const openAt = (dirFd: number, name: string) => libc.openAt(dirFd, name, FOLDER_FLAGS);
  const close = (fd: number) => void libc.close(fd);
  /** One name at a time from `startFd`; with `mountOf`, each step must stay on the start's mount. */
  const walk = (startFd: number, segments: readonly string[], staysOnMount: boolean): number => {
    const mount = staysOnMount ? mountOf(startFd) : null;
    if (staysOnMount && mount === null) return -ERRNO.EXDEV;
    let fd = openAt(startFd, ".");
    for (const segment of segments) {
      if (fd < 0) return fd;
      const next = openAt(fd, segment);
      close(fd);
      fd = next;
      if (fd >= 0 && staysOnMount && mountOf(fd) !== mount) {
        close(fd);
        return -ERRNO.EXDEV;
      }
    }
    return fd;
  };
  /** `openat2`'s answer, or null when the call is missing here (then never tried again). */
  const viaOpenat2 = (
    dirFd: number,
    path: string,
    resolve: number,
    flags = FOLDER_FLAGS,
  ): number | null => {
    if (!hasOpenat2) return null;
    const fd = libc.openAt2(dirFd, path, flags, resolve);
    if (fd !== -ERRNO.ENOSYS && fd !== -ERRNO.EPERM) return fd;
    hasOpenat2 = false;
    return null;
  };
  return {
    openRoot(realPath) {
      const fd = viaOpenat2(AT_FDCWD, realPath, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
      if (fd !== null) return fd;
      const slash = openAt(AT_FDCWD, "/");
      if (slash < 0) return slash;
      try {
        return walk(slash, segmentsOf(realPath), false);
      } finally {
        close(slash);
      }
    },
    openBelow(rootFd, relative) {
      const fd = viaOpenat2(
        rootFd,
        relative === "" ? "." : relative,
        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
      );
      return fd ?? walk(rootFd, segmentsOf(relative), true);
    },
    openBelowToRead(rootFd, relative) {
      const fd = viaOpenat2(
        rootFd,
        relative === "" ? "." : relative,
        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
        READ_FOLDER_FLAGS,
      );
      return fd ?? walk(rootFd, segmentsOf(relative), true);
    },
    close,
    get usesOpenat2() {
      return hasOpenat2;
    },
    calls: nativeFolderCalls(libc, lstatThroughProc),
  };
}

/** `path`'s non-empty segments (the caller passes plain ones: no `.` or `..`). */
function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

/** The mount id of the open `fd` (`/proc/self/fdinfo`), or null when it cannot be read. */
function mountOf(fd: number): string | null {
  try {
    return /^mnt_id:\s*(\d+)$/m.exec(Deno.readTextFileSync(`/proc/self/fdinfo/${fd}`))?.[1] ??
      null;
  } catch {
    return null;
  }
}
