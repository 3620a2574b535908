/**
 * Descriptors skillgate inherited from whatever started it (beyond stdin,
 * stdout and stderr) are marked close-on-exec at boot, so no script ever
 * receives one: Deno does not close a child's inherited descriptors, and a
 * host that leaves, say, a socket or a secret file open in skillgate would
 * otherwise hand it to every script, sandboxed or not (bubblewrap passes
 * descriptors through too).
 *
 * Deno has no fcntl, so it is called through FFI on libc, in the trusted part
 * only (it holds `--allow-all`); the worker has no FFI.
 *
 * @module
 */

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

/** What {@linkcode closeInheritedOnExec} did. */
export interface InheritedFdsStatus {
  /** Descriptors that were inheritable and are now close-on-exec. */
  readonly marked: readonly number[];
  /** Why nothing could be done (not Linux, no libc), else null. */
  readonly error: string | null;
}

/**
 * Marks every open descriptor above 2 close-on-exec. Never throws.
 *
 * @returns The descriptors changed, or why it could not look.
 *
 * Requires `--allow-read` on `/proc/self/fd` and `--allow-ffi` (the trusted
 * part's `--allow-all`).
 *
 * Source: fcntl(2) F_SETFD; issue 16 ("no inherited descriptors beyond
 * stdin/stdout/stderr").
 */
export function closeInheritedOnExec(): InheritedFdsStatus {
  if (Deno.build.os !== "linux") return { marked: [], error: "only on Linux" };
  let fds: number[];
  try {
    fds = [...Deno.readDirSync("/proc/self/fd")].map((entry) => Number(entry.name))
      .filter((fd) => Number.isInteger(fd) && fd > 2);
  } catch (error) {
    return { marked: [], error: error instanceof Error ? error.name : String(error) };
  }
  let library: Deno.DynamicLibrary<{
    fcntl: { parameters: ["i32", "i32", "i32"]; result: "i32" };
  }>;
  try {
    library = Deno.dlopen("libc.so.6", {
      fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
    });
  } catch (error) {
    return { marked: [], error: error instanceof Error ? error.name : String(error) };
  }
  const marked: number[] = [];
  try {
    for (const fd of fds) {
      const flags = library.symbols.fcntl(fd, F_GETFD, 0);
      if (flags < 0 || (flags & FD_CLOEXEC) !== 0) continue;
      if (library.symbols.fcntl(fd, F_SETFD, flags | FD_CLOEXEC) === 0) marked.push(fd);
    }
  } finally {
    library.close();
  }
  return { marked, error: null };
}
