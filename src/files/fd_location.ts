/**
 * Where an open file descriptor really is: the kernel's own path for the file
 * it refers to (`/proc/self/fd/<fd>`), which no later rename or symlink swap
 * of the path that opened it can fake. The path gate uses it to prove that
 * the file it opened is the file it checked.
 *
 * Reading `/proc` needs Deno's `--allow-all`, which the worker does not hold,
 * so the worker installs a locator that asks the trusted part (same process,
 * same descriptor table) over postMessage. Where no locator can answer
 * (another OS, no /proc), the answer is `null` and the gate relies on its
 * other checks (see README, "Security model").
 *
 * @module
 */

/** Answers the real path of an open descriptor, or null when it cannot tell. */
export type FdLocator = (fd: number) => Promise<string | null>;

let installed: FdLocator = locateDirectly;
/** Whether the installed locator answered null (cannot tell) at least once. */
let hasAnsweredNull = false;

/**
 * Replaces the locator (the worker installs one that asks the trusted part).
 *
 * @param locator The new locator.
 */
export function installFdLocator(locator: FdLocator): void {
  installed = locator;
  hasAnsweredNull = false;
}

/**
 * The real path of an open descriptor of this process.
 *
 * @param fd An OS file descriptor (as `node:fs` returns).
 * @returns The kernel's path for it, or null when it cannot be told here.
 */
export async function locateFd(fd: number): Promise<string | null> {
  const location = await installed(fd);
  if (location === null) hasAnsweredNull = true;
  return location;
}

/**
 * Whether the installed locator is expected to answer: false once it
 * answered null (no `/proc`, another OS), until another is installed. The
 * gate then narrows every open from the start (`bounded_read.ts`); it never
 * decides whether a location is checked, only how much is walked before.
 *
 * @returns True until the installed locator answered null.
 */
export function isLocatorExpectedToAnswer(): boolean {
  return !hasAnsweredNull;
}

/**
 * Reads `/proc/self/fd/<fd>` in this thread. Requires `--allow-all` (every
 * `/proc` access does); without it, or off Linux, answers null.
 *
 * @param fd An OS file descriptor.
 * @returns Its real path, or null.
 */
export function locateDirectly(fd: number): Promise<string | null> {
  return Promise.resolve(locateDirectlySync(fd));
}

/**
 * {@linkcode locateDirectly} without the promise: the trusted part answers a
 * batch of descriptors with one `readlink` of `/proc/self/fd/<fd>` each and no
 * promise per descriptor (issue 13: ~40,000 locates in a 10,000-skill cold
 * listing). Requires `--allow-all` (every `/proc` access does); without it, or
 * off Linux, answers null.
 *
 * @param fd An OS file descriptor.
 * @returns Its real path, or null (not a safe non-negative integer, not open,
 *   no `/proc`).
 */
export function locateDirectlySync(fd: number): string | null {
  if (!Number.isSafeInteger(fd) || fd < 0) return null;
  try {
    return Deno.readLinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}
