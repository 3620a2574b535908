/**
 * The one way the trusted part ends the process. Scripts run in their own
 * process groups (`--isolation=group`), which outlive skillgate unless it
 * signals them, so every exit, whatever its cause (the command's end, a
 * repeated signal, a stop deadline, an internal error), first ends every
 * group the trusted group killer registered (review r12 F6, review r13: the
 * internal-error exit did not). A test holds `Deno.exit` to this module
 * (`tests/support/source_scan_policy.ts`).
 *
 * Deliberately free of imports: `main.ts` loads it before anything else, so
 * even an error thrown while loading the rest of the trusted part exits here.
 *
 * @module
 */

/** The registered enders: each signals its groups and returns how many it signalled. */
const groupEnders = new Set<() => number>();

/**
 * Registers a function that ends process groups (a trusted group killer's
 * `killAllNow`), to be called, synchronously, by every {@linkcode exitProcess}.
 *
 * @param endGroups Ends every group it knows; must not block. A throw is
 *   ignored (the process exits anyway).
 * @returns A function that removes the registration.
 *
 * Needs no permission (what `endGroups` needs, the caller holds).
 */
export function endGroupsAtExit(endGroups: () => number): () => void {
  groupEnders.add(endGroups);
  return () => {
    groupEnders.delete(endGroups);
  };
}

/**
 * Ends every registered group, then the process.
 *
 * @param code The exit status (0-255).
 * @param exit What ends the process; tests pass a recorder. @default `Deno.exit`
 * @returns Never, with the default `exit`.
 *
 * Needs no permission of its own.
 */
export function exitProcess(code: number, exit: (code: number) => never = Deno.exit): never {
  for (const endGroups of groupEnders) {
    try {
      endGroups();
    } catch {
      // The exit goes ahead: a failed ender must not keep the process (and its other groups) alive.
    }
  }
  return exit(code);
}

/**
 * Makes an error no code caught (a throw in a callback, a promise rejected
 * with nobody waiting) end the process through {@linkcode exitProcess},
 * status 1, after one `skillgate: internal error: ...` line on stderr.
 * Deno's default would end the process at once, leaving process-group
 * scripts running (review r15). For the trusted part's main module only.
 *
 * @param target The global scope listened on. @default globalThis
 * @param exit As for {@linkcode exitProcess}. @default `Deno.exit`
 *
 * Needs no permission of its own.
 */
export function exitOnUncaughtErrors(
  target: EventTarget = globalThis,
  exit: (code: number) => never = Deno.exit,
): void {
  const end = (event: Event, error: unknown) => {
    event.preventDefault();
    console.error(`skillgate: internal error: ${error instanceof Error ? error.message : error}`);
    exitProcess(1, exit);
  };
  target.addEventListener("error", (event) => end(event, (event as ErrorEvent).error));
  target.addEventListener(
    "unhandledrejection",
    (event) => end(event, (event as PromiseRejectionEvent).reason),
  );
}
