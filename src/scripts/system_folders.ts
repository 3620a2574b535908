/**
 * The system folders skillgate looks in for the isolation launchers
 * (`unshare`, `bwrap`): a module of its own so the trusted part's start-up
 * can predict the worker's run permission without loading the isolation
 * code (issue 13).
 *
 * @module
 */

/** Folders searched for `unshare` (a system tool; PATH is not consulted). */
export const SYSTEM_FOLDERS: readonly string[] = Object.freeze([
  "/usr/bin",
  "/bin",
  "/usr/sbin",
  "/sbin",
]);
