/**
 * Looking at this machine's processes from tests that must show a script's
 * processes are gone: by command line and by pid, through `/proc` (Linux).
 *
 * @module
 */

/**
 * The state letter of a `/proc/<pid>/stat` line (`R`, `S`, `Z`, ...): the
 * first field after the command name, which may itself hold `)`.
 */
function stateOf(stat: string): string | undefined {
  return stat.slice(stat.lastIndexOf(")") + 2)[0];
}

/**
 * Live (not zombie) pids whose command line contains `needle`.
 *
 * @param needle Text to look for in the NUL-separated command line, joined by spaces.
 * @returns The pids, in `/proc` order.
 */
export function liveProcessesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (cmdline.includes(needle) && stateOf(stat) !== "Z") found.push(Number(entry.name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * Whether a pid names a live (not zombie) process.
 *
 * @param pid Any pid.
 * @returns False when there is no such process or it is a zombie.
 */
export function isAlive(pid: number): boolean {
  try {
    return stateOf(Deno.readTextFileSync(`/proc/${pid}/stat`)) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Polls `check` until it holds or a generous ceiling passes (never a timed
 * assertion: the ceiling only bounds a failing test).
 *
 * @param check The condition.
 * @param seconds The ceiling. @default 10
 * @returns Whether it held.
 */
export async function eventually(check: () => boolean, seconds = 10): Promise<boolean> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/**
 * Polls `check` (sync or async) until it holds; throws naming `what` once
 * `ceilingMs` passed (never a timed assertion: the ceiling only bounds a
 * failing test).
 *
 * @param what What is waited for, for the error.
 * @param check The condition.
 * @param options `ceilingMs` (default 30,000) and `pollMs` (default 50).
 * @throws {Error} "Timed out after N ms waiting for WHAT".
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { readonly ceilingMs?: number; readonly pollMs?: number } = {},
): Promise<void> {
  const ceilingMs = options.ceilingMs ?? 30_000;
  const deadline = Date.now() + ceilingMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${ceilingMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
}
