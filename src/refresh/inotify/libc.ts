/**
 * The libc calls live refresh's inotify watch needs, through Deno's FFI: the
 * ONLY module of the watcher that calls `Deno.dlopen` (fixed library name,
 * fixed symbols). Loaded by the trusted part alone (it holds `--allow-all`,
 * which includes `--allow-ffi`); the serving worker's set holds no `ffi`, so
 * it can never load it. Deno 2.9.6 needs no unstable flag for `Deno.dlopen`.
 *
 * Every call answers what the kernel answered: a result, or `-errno` read
 * from `__errno_location()` right after the call on the same thread (a
 * synchronous FFI call runs on this thread, so nothing can run between).
 * Only `poll` is asynchronous (`nonblocking: true`: it runs on a thread of
 * its own, so the event loop keeps turning while it waits); its errno is
 * not read (another thread's), a negative answer is enough.
 *
 * Linux only: {@linkcode openLibc} answers null elsewhere (no inotify).
 *
 * The trusted part's opens of folders an isolate names by path use its
 * `openAt` and `openAt2` too (`src/files/folder_beneath.ts`, review r17
 * hC-1): one binding of libc, one FFI door.
 *
 * Source: inotify(7), inotify_add_watch(2), openat(2), openat2(2), poll(2),
 * eventfd(2).
 *
 * @module
 */

const SYMBOLS = {
  inotify_init1: { parameters: ["i32"], result: "i32" },
  inotify_add_watch: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  inotify_rm_watch: { parameters: ["i32", "i32"], result: "i32" },
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  // openat2 has no glibc wrapper before 2.42: reached through syscall(2).
  syscall: { parameters: ["i64", "i64", "buffer", "buffer", "usize"], result: "i64" },
  // getdents64 and statx through syscall(2) too: the same numbers under glibc and musl.
  syscall_getdents64: {
    name: "syscall",
    parameters: ["i64", "i64", "buffer", "usize"],
    result: "i64",
  },
  syscall_statx: {
    name: "syscall",
    parameters: ["i64", "i64", "buffer", "i64", "i64", "buffer"],
    result: "i64",
  },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  eventfd: { parameters: ["u32", "i32"], result: "i32" },
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

/** `O_*` and `IN_*` constants of Linux x86_64 and aarch64 (the same values on both). */
export const O_RDONLY = 0;
/** Open the file itself as a location only (no read, no open of a FIFO's other end). */
export const O_PATH = 0o10000000;
/** Fail unless a folder. */
export const O_DIRECTORY = 0o200000;
/** Fail (ELOOP) when the last component is a symlink. */
export const O_NOFOLLOW = 0o400000;
/** Closed on exec (no script inherits it). */
export const O_CLOEXEC = 0o2000000;
/** `inotify_init1` / `eventfd` flags. */
export const IN_NONBLOCK = 0o4000;
/** Closed on exec. */
export const IN_CLOEXEC = 0o2000000;

/** errno values the watcher tells apart. */
export const ENOENT = 2;
/** A bad descriptor (an open that named no folder: nothing was opened). */
export const EBADF = 9;
/** Not a folder. */
export const ENOTDIR = 20;
/** A symlink refused (`O_NOFOLLOW`). */
export const ELOOP = 40;
/** Out of watches (`max_user_watches`) for `inotify_add_watch`. */
export const ENOSPC = 28;
/** Nothing to read on a non-blocking descriptor. */
export const EAGAIN = 11;
/** No permission. */
export const EACCES = 13;
/** A bad descriptor or watch (already removed). */
export const EINVAL = 22;
/** Out of kernel memory. */
export const ENOMEM = 12;
/** The system's open-file table is full (`fs.file-max`). */
export const ENFILE = 23;
/** This process's descriptor table is full (`ulimit -n`). */
export const EMFILE = 24;

/** Names of the errno values a failed open or watch is said lost with (by value). */
const ERRNO_NAMES: Readonly<Record<number, string>> = {
  [EACCES]: "PermissionDenied",
  [ENOMEM]: "ENOMEM",
  [ENFILE]: "ENFILE",
  [EMFILE]: "EMFILE",
  [ENOSPC]: "ENOSPC",
};

/**
 * The name a folder lost for a failed call is said with.
 *
 * @param negativeErrno A call's `-errno` answer (a negative integer).
 * @returns `PermissionDenied` for EACCES (as Deno names it), `EMFILE`,
 *   `ENFILE`, `ENOMEM`, `ENOSPC`; any other `errno N`.
 */
export function errnoName(negativeErrno: number): string {
  return ERRNO_NAMES[-negativeErrno] ?? `errno ${-negativeErrno}`;
}

/** The libc entry points, each answering the kernel's result or `-errno`. */
export interface Libc {
  inotifyInit(): number;
  /** `inotify_add_watch(fd, path, mask)`: the watch descriptor, or `-errno`. */
  addWatch(fd: number, path: string, mask: number): number;
  /** `inotify_rm_watch`: 0, or `-errno` (EINVAL once the kernel dropped it). */
  rmWatch(fd: number, wd: number): number;
  /** `openat(dirFd, name, flags)`: a descriptor, or `-errno`. */
  openAt(dirFd: number, name: string, flags: number): number;
  /**
   * `openat2(dirFd, path, { flags, mode: 0, resolve })`: a descriptor, or
   * `-errno` (`-ENOSYS` where the kernel has none: before Linux 5.6).
   */
  openAt2(dirFd: number, path: string, flags: number, resolve: number): number;
  /**
   * `getdents64(fd, buffer)`: the bytes of `struct linux_dirent64` records
   * written into `buffer` (0 at the folder's end), or `-errno`; `-ENOSYS` on
   * an architecture other than x86_64 and aarch64. Source: getdents(2).
   */
  getdents64(fd: number, buffer: Uint8Array): number;
  /**
   * `statx(dirFd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, buffer)`:
   * 0 with `struct statx` (256 bytes) in `buffer`, or `-errno`; `-ENOSYS` on
   * an architecture other than x86_64 and aarch64 or a kernel before 4.11.
   * Source: statx(2).
   */
  statxNoFollow(dirFd: number, name: string, buffer: Uint8Array): number;
  /** `read` into `buffer`: bytes read, or `-errno` (`-EAGAIN`: nothing queued). */
  read(fd: number, buffer: Uint8Array): number;
  /** Adds 1 to an eventfd's counter (wakes a poll on it); answers bytes written or `-errno`. */
  signal(eventFd: number): number;
  close(fd: number): number;
  /** A non-blocking, close-on-exec eventfd, or `-errno`. */
  eventFd(): number;
  /**
   * Waits until one of `fds` is readable (or `timeoutMs`, -1 for ever), on
   * a thread of its own: the count of ready ones (0 on timeout) and which.
   */
  pollReadable(fds: readonly number[], timeoutMs: number): Promise<readonly boolean[] | null>;
  /** Unloads the library (after the last call answered). */
  unload(): void;
}

/** The library names tried, in order (glibc, then musl). */
const NAMES = ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

const encoder = new TextEncoder();

/** `text` as a NUL-terminated C string. */
function cString(text: string): Uint8Array<ArrayBuffer> {
  const bytes = encoder.encode(text);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/**
 * Loads libc for the inotify watch.
 *
 * @returns The calls, or null off Linux, without `--allow-ffi`, or when no
 *   libc loads (the caller falls back to reading the roots periodically).
 *
 * Requires `--allow-ffi` (the trusted part's `--allow-all`).
 */
export function openLibc(): Libc | null {
  if (Deno.build.os !== "linux") return null;
  let library: Deno.DynamicLibrary<typeof SYMBOLS> | null = null;
  for (const name of NAMES) {
    try {
      library = Deno.dlopen(name, SYMBOLS);
      break;
    } catch {
      // The next name.
    }
  }
  if (library === null) return null;
  const lib = library;
  const errnoAt = lib.symbols.__errno_location();
  const errnoView = errnoAt === null ? null : new Deno.UnsafePointerView(errnoAt);
  /** `result` when not negative, else `-errno`. */
  const answer = (result: number): number =>
    result >= 0 ? result : -(errnoView?.getInt32() ?? EINVAL);
  const one = new BigUint64Array([1n]);
  const oneBytes = new Uint8Array(one.buffer);
  return {
    inotifyInit: () => answer(lib.symbols.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)),
    addWatch: (fd, path, mask) => answer(lib.symbols.inotify_add_watch(fd, cString(path), mask)),
    rmWatch: (fd, wd) => answer(lib.symbols.inotify_rm_watch(fd, wd)),
    openAt: (dirFd, name, flags) => answer(lib.symbols.openat(dirFd, cString(name), flags, 0)),
    openAt2(dirFd, path, flags, resolve) {
      // struct open_how { u64 flags; u64 mode; u64 resolve; }
      const how = new BigUint64Array([BigInt(flags), 0n, BigInt(resolve)]);
      const how8 = new Uint8Array(how.buffer);
      const at = BigInt(dirFd);
      return answer(Number(lib.symbols.syscall(SYS_OPENAT2, at, cString(path), how8, 24n)));
    },
    getdents64(fd, buffer) {
      if (SYSCALLS === null) return -ENOSYS;
      const { getdents64 } = SYSCALLS;
      return answer(
        Number(
          lib.symbols.syscall_getdents64(getdents64, BigInt(fd), buffer, BigInt(buffer.length)),
        ),
      );
    },
    statxNoFollow(dirFd, name, buffer) {
      if (SYSCALLS === null || buffer.length < STATX_BYTES) return -ENOSYS;
      const { statx } = SYSCALLS;
      const flags = BigInt(AT_SYMLINK_NOFOLLOW);
      const mask = BigInt(STATX_BASIC_STATS);
      return answer(
        Number(lib.symbols.syscall_statx(statx, BigInt(dirFd), cString(name), flags, mask, buffer)),
      );
    },
    read: (fd, buffer) => answer(Number(lib.symbols.read(fd, buffer, BigInt(buffer.length)))),
    signal: (eventFd) => answer(Number(lib.symbols.write(eventFd, oneBytes, 8n))),
    close: (fd) => answer(lib.symbols.close(fd)),
    eventFd: () => answer(lib.symbols.eventfd(0, IN_NONBLOCK | IN_CLOEXEC)),
    async pollReadable(fds, timeoutMs) {
      // struct pollfd { int fd; short events; short revents; }: 8 bytes each.
      const table = new Uint8Array(8 * fds.length);
      const view = new DataView(table.buffer);
      fds.forEach((fd, i) => {
        view.setInt32(8 * i, fd, true);
        view.setInt16(8 * i + 4, POLLIN, true);
      });
      const ready = await lib.symbols.poll(table, BigInt(fds.length), timeoutMs);
      if (ready < 0) return null;
      return fds.map((_, i) => view.getInt16(8 * i + 6, true) !== 0);
    },
    unload: () => lib.close(),
  };
}

/** `openat2`'s system call number: the same on x86_64 and aarch64 (one table for new calls). */
const SYS_OPENAT2 = 437n;

/** The system call numbers of getdents64 and statx on this architecture (they differ), or null. */
const SYSCALLS: { readonly getdents64: bigint; readonly statx: bigint } | null =
  Deno.build.arch === "x86_64"
    ? { getdents64: 217n, statx: 332n }
    : Deno.build.arch === "aarch64"
    ? { getdents64: 61n, statx: 291n }
    : null;

/** `statx` flag: do not follow a symlink at the last component. */
const AT_SYMLINK_NOFOLLOW = 0x100;
/** `statx` mask: every field `stat(2)` has. */
const STATX_BASIC_STATS = 0x7ff;
/** Size of `struct statx`, in bytes. */
export const STATX_BYTES = 256;
/** Not implemented (here: no number for this architecture, or an old kernel). */
export const ENOSYS = 38;

/** `poll` event: readable. */
const POLLIN = 1;
