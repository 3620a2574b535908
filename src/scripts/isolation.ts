/**
 * Where the kernel allows an unprivileged PID namespace, a script runs inside
 * one: when its first process ends, the kernel kills every process left in
 * the namespace, including descendants that left the process group (a
 * `setsid` daemon), and `/proc` inside shows only the namespace. The script
 * then runs in a second, nested user namespace, so it holds no rights over
 * the mount namespace and cannot unmount that private `/proc` to see the host's.
 *
 * @module
 */

import { findProgram } from "./interpreters.ts";
import type { GroupKiller } from "./runner/group_killer.ts";
import { runScript } from "./runner/run_script.ts";

/** How scripts are contained. */
export interface Isolation {
  /** `pid-namespace` (group plus namespace) or `process-group` (group only). */
  readonly mode: "pid-namespace" | "process-group";
  /** Absolute path of `unshare` in `pid-namespace` mode, else null. */
  readonly unsharePath: string | null;
  readonly note: string;
}

/** Folders searched for `unshare` (a system tool; PATH is not consulted). */
export const SYSTEM_FOLDERS: readonly string[] = Object.freeze([
  "/usr/bin",
  "/bin",
  "/usr/sbin",
  "/sbin",
]);

/**
 * The `unshare` arguments that put a command in a fresh user, PID and mount
 * namespace with a private `/proc` (the outer `unshare` forks the namespace's
 * first process and kills it if it dies itself), then in a nested user
 * namespace without rights over those mounts.
 *
 * @param unsharePath Absolute path of `unshare`.
 * @returns The arguments to put before the program and its arguments.
 */
export function namespaceArgs(unsharePath: string): string[] {
  return [
    "--user",
    "--map-root-user",
    "--pid",
    "--fork",
    "--mount-proc",
    "--kill-child",
    "--",
    unsharePath,
    "--user",
    "--map-root-user",
    "--",
  ];
}

/**
 * Wraps a program for the isolation in force.
 *
 * @param program Absolute program path.
 * @param args Its arguments.
 * @param isolation The isolation decided at start-up.
 * @returns What the runner spawns: `unshare` with the namespace arguments, or
 *   the program itself.
 */
export function isolate(
  program: string,
  args: readonly string[],
  isolation: Isolation,
): { program: string; args: string[] } {
  if (isolation.mode !== "pid-namespace" || isolation.unsharePath === null) {
    return { program, args: [...args] };
  }
  return {
    program: isolation.unsharePath,
    args: [...namespaceArgs(isolation.unsharePath), program, ...args],
  };
}

/**
 * Checks at start-up whether scripts can run in a PID namespace here: runs
 * `sh -c 'echo $$'` wrapped by {@linkcode isolate} and expects pid 1.
 *
 * @param options `shPath`: an absolute `sh` (or null); `killer`: ends the
 *   probe's group; `folders`: where to look for `unshare`; `requested`: the
 *   owner's `--isolation` (`group` skips the probe). @default "auto"
 * @returns `pid-namespace` when the probe printed 1, else `process-group` with why.
 *
 * Requires `--allow-run` for `unshare` and `--allow-read` on the folders.
 */
export async function probeIsolation(options: {
  shPath: string | null;
  killer: GroupKiller;
  folders?: readonly string[];
  requested?: "auto" | "group";
}): Promise<Isolation> {
  const groupOnly = (why: string): Isolation => ({
    mode: "process-group",
    unsharePath: null,
    note: `Each script runs as the leader of its own process group, which is ended on timeout; ` +
      `a descendant that leaves the group (setsid) is not reached. ${why}`,
  });
  if (options.requested === "group") {
    return groupOnly(
      "The owner chose --isolation=group, so the worker's run permission names the " +
        "interpreters themselves",
    );
  }
  if (Deno.build.os !== "linux") return groupOnly("PID namespaces exist only on Linux");
  const unsharePath = findProgram("unshare", options.folders ?? SYSTEM_FOLDERS);
  if (unsharePath === undefined) return groupOnly("unshare was not found");
  if (options.shPath === null) return groupOnly("sh was not found to probe with");
  const candidate: Isolation = { mode: "pid-namespace", unsharePath, note: "" };
  const wrapped = isolate(options.shPath, ["-c", "echo $$"], candidate);
  const outcome = await runScript({
    program: wrapped.program,
    args: wrapped.args,
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 5_000,
  }, { killer: options.killer, graceMs: 500, drainMs: 500, pipeDeadlineMs: 500 });
  if (outcome.exitCode !== 0 || outcome.stdout.trim() !== "1") {
    const why = outcome.spawnError ?? outcome.stderr.trim().split("\n")[0] ?? "";
    return groupOnly(`An unprivileged PID namespace is not available here (${why.slice(0, 200)})`);
  }
  return {
    mode: "pid-namespace",
    unsharePath,
    note: "Each script runs in its own PID namespace (and process group): when it ends or " +
      "times out, every process it started ends too, and its /proc shows only its own processes",
  };
}
