/**
 * Making skillgate's process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`), so
 * a script cannot reach into it through `/proc/<skillgate>/`: the kernel
 * then owns those files by root and lets another process open
 * `/proc/<pid>/fd/*` (skillgate's stdin and stdout, where a forged JSON-RPC
 * line could be written or the client's requests read), `environ` or `mem`
 * only with `CAP_SYS_PTRACE`. Scripts as skillgate's own user have none, and
 * as root they run with every capability dropped (`isolation.ts`). The
 * process itself keeps its own `/proc/self` (the descriptor location check
 * and the group killer are unaffected), and the flag resets on exec, so
 * scripts are dumpable as usual.
 *
 * Deno has no prctl, so it is called through FFI on libc, in the trusted part
 * only (it holds `--allow-all`, which includes `--allow-ffi`; the worker has
 * no FFI). It must run after the environment scrub, which writes
 * `/proc/self/mem` (opening it stays allowed to the process itself, but the
 * file becomes root's, which an unprivileged owner could no longer open).
 *
 * @module
 */

/** `prctl` options (linux/prctl.h). */
const PR_GET_DUMPABLE = 3;
const PR_SET_DUMPABLE = 4;

/** The C libraries tried, in order (glibc, then a generic name). */
const LIBC_NAMES: readonly string[] = ["libc.so.6", "libc.so"];

/** Whether the process is non-dumpable, and why not when it is not. */
export interface DumpableStatus {
  readonly isNonDumpable: boolean;
  /** One sentence for `skill_list`'s isolation note and the README's table. */
  readonly note: string;
}

/**
 * Sets this process non-dumpable and checks that it took. Never throws.
 *
 * @returns Whether the process is now non-dumpable; when it is not (not
 *   Linux, no libc found, FFI refused, prctl failed), a note saying why.
 *
 * Requires `--allow-ffi` (the trusted part's `--allow-all`).
 *
 * Source: prctl(2), PR_SET_DUMPABLE; proc(5), "/proc/pid" ownership and
 * ptrace access mode checking.
 */
export function makeNonDumpable(): DumpableStatus {
  if (Deno.build.os !== "linux") {
    return { isNonDumpable: false, note: "PR_SET_DUMPABLE exists only on Linux" };
  }
  let lastError = "no C library found";
  for (const name of LIBC_NAMES) {
    let library: Deno.DynamicLibrary<{
      prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"]; result: "i32" };
    }>;
    try {
      library = Deno.dlopen(name, {
        prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
      });
    } catch (error) {
      lastError = error instanceof Error ? error.name : String(error);
      continue;
    }
    try {
      const set = library.symbols.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n);
      const now = library.symbols.prctl(PR_GET_DUMPABLE, 0n, 0n, 0n, 0n);
      if (set === 0 && now === 0) {
        return {
          isNonDumpable: true,
          note: "skillgate is non-dumpable: a script cannot open its /proc/<pid>/fd, environ " +
            "or mem",
        };
      }
      lastError = `prctl returned ${set}, dumpable is ${now}`;
    } finally {
      library.close();
    }
  }
  return {
    isNonDumpable: false,
    note: `skillgate could not be made non-dumpable (${lastError}), so a script running as ` +
      "its user can open its /proc/<pid>/fd",
  };
}
