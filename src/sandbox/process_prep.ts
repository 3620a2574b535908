/**
 * The trusted part's process-wide preparation before scripts can run and
 * before a second thread starts: scrub the original environment block, make
 * the process non-dumpable, mark inherited descriptors close-on-exec. A
 * module of its own so `serve` can do it first and create the worker right
 * after (issue 13), while `bootScripts` does it itself when nothing did.
 *
 * @module
 */

import type { EnvironStatus } from "../scripts/plan.ts";
import { scrubEnviron } from "./environ_scrub.ts";
import { closeInheritedOnExec } from "./inherited_fds.ts";
import { type DumpableStatus, makeNonDumpable } from "./non_dumpable.ts";

/** What the preparation found, for the isolation note and the environ status. */
export interface PreparedProcess {
  /** The environment block's scrub (see `scrubEnviron`). */
  readonly scrub: EnvironStatus;
  /** Whether the process is now non-dumpable (see `makeNonDumpable`). */
  readonly dumpable: DumpableStatus;
}

/**
 * Does the preparation, once per process, before any worker thread exists:
 * the scrub re-homes every variable with `setenv`, which must not race a
 * thread reading the environment (a worker's runtime does while it starts).
 * Never throws: each failure is a status.
 *
 * @returns The scrub's and the dumpable flag's status.
 *
 * Requires `--allow-all` (Deno demands it for any `/proc` access, and for
 * the FFI call behind `prctl`).
 *
 * Source: issue 4 ("Secrets"), issue 13 (the worker created right after).
 */
export function prepareScriptProcess(): PreparedProcess {
  const scrub = scrubEnviron();
  // After the scrub (it writes /proc/self/mem), before any script can start.
  const dumpable = makeNonDumpable();
  // Descriptors skillgate inherited (beyond 0-2) must never reach a script.
  closeInheritedOnExec();
  return { scrub, dumpable };
}
