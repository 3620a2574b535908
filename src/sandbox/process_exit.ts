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
