/**
 * Where the kernel allows an unprivileged PID namespace, a script runs inside
 * one: when its first process ends, the kernel kills every process left in
 * the namespace, including descendants that left the process group (a
 * `setsid` daemon), and `/proc` inside shows only the namespace. The script
 * then runs in a second, nested user namespace, so it holds no rights over
 * the mount namespace and cannot unmount that private `/proc` to see the host's.
 *
 * Otherwise (or with `--isolation=group`) a script runs as the leader of its
 * own process group, started through the group launcher: a system `sh` that
 * stops itself (`kill -STOP $$`) before it execs the script, so the trusted
 * part registers the group while nothing of the script has run, then lets it
 * continue. A leader that exits at once can therefore never leave background
 * children in a group nobody knows. When skillgate runs as root, `setpriv`
 * first drops every capability of the script (bounding, inheritable and
 * ambient sets; no new privileges), so the script cannot use
 * `CAP_SYS_PTRACE` to pass the non-dumpable wall (`non_dumpable.ts`) and
 * open skillgate's `/proc/<pid>/fd`.
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
  /**
   * `process-group` mode: the launcher scripts start through; absent or null
   * when no system `sh` was found (the script is then spawned directly, and
   * a leader that exits before its group is registered can leave children).
   */
  readonly launcher?: GroupLauncher | null;
}

/** How a script starts in `process-group` mode. */
export interface GroupLauncher {
  /** Absolute path of a system `sh` (from {@linkcode SYSTEM_FOLDERS}). */
  readonly shPath: string;
  /** Absolute path of `setpriv` when skillgate runs as root, else null. */
  readonly setprivPath: string | null;
}

/**
 * The launcher's script: stop until the trusted part has registered the
 * group and continued us, drop the working-directory variables `sh` adds to
 * the environment, then become the script (`$0` is a label; `$@` is the
 * program and its arguments).
 */
export const LAUNCHER_SCRIPT = 'kill -STOP $$; unset PWD OLDPWD; exec "$@"';

/** The `setpriv` arguments that leave the script no capability, even as root. */
export const CAPABILITY_DROP_ARGS: readonly string[] = Object.freeze([
  "--bounding-set=-all",
  "--inh-caps=-all",
  "--ambient-caps=-all",
  "--no-new-privs",
  "--",
]);

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
 * @returns What the runner spawns: `unshare` with the namespace arguments;
 *   in `process-group` mode the launcher (`setpriv` then `sh` when root, else
 *   `sh`) with `stopsBeforeExec: true`; or the program itself when there is
 *   no launcher.
 */
export function isolate(
  program: string,
  args: readonly string[],
  isolation: Isolation,
): { program: string; args: string[]; stopsBeforeExec: boolean } {
  if (isolation.mode === "pid-namespace" && isolation.unsharePath !== null) {
    return {
      program: isolation.unsharePath,
      args: [...namespaceArgs(isolation.unsharePath), program, ...args],
      stopsBeforeExec: false,
    };
  }
  const launcher = isolation.mode === "process-group" ? isolation.launcher ?? null : null;
  if (launcher === null) return { program, args: [...args], stopsBeforeExec: false };
  const shArgs = ["-c", LAUNCHER_SCRIPT, "skillgate-launch", program, ...args];
  if (launcher.setprivPath === null) {
    return { program: launcher.shPath, args: shArgs, stopsBeforeExec: true };
  }
  return {
    program: launcher.setprivPath,
    args: [...CAPABILITY_DROP_ARGS, launcher.shPath, ...shArgs],
    stopsBeforeExec: true,
  };
}

/**
 * Finds the group launcher's programs in the system folders.
 *
 * @param options `folders` to search (@default {@linkcode SYSTEM_FOLDERS});
 *   `isRoot`: whether skillgate runs as uid 0 (then `setpriv` is needed).
 * @returns The launcher, or null when there is no `sh`, or skillgate runs
 *   as root and there is no `setpriv` (a script would keep root's
 *   capabilities; it is then spawned directly and `skill_list` says so).
 *
 * Requires `--allow-read` on the folders.
 */
export function findGroupLauncher(options: {
  folders?: readonly string[];
  isRoot: boolean;
}): GroupLauncher | null {
  const folders = options.folders ?? SYSTEM_FOLDERS;
  const shPath = findProgram("sh", folders);
  if (shPath === undefined) return null;
  if (!options.isRoot) return { shPath, setprivPath: null };
  const setprivPath = findProgram("setpriv", folders);
  return setprivPath === undefined ? null : { shPath, setprivPath };
}

/**
 * Checks at start-up whether scripts can run in a PID namespace here: runs
 * `sh -c 'echo $$'` wrapped by {@linkcode isolate} and expects pid 1.
 *
 * @param options `shPath`: an absolute `sh` (or null); `killer`: ends the
 *   probe's group; `folders`: where to look for `unshare`, `sh` and
 *   `setpriv`; `requested`: the owner's `--isolation` (`group` skips the
 *   probe) @default "auto"; `isRoot`: whether skillgate runs as uid 0
 *   @default `Deno.uid() === 0`.
 * @returns `pid-namespace` when the probe printed 1, else `process-group` with why.
 *
 * Requires `--allow-run` for `unshare` and `--allow-read` on the folders.
 */
export async function probeIsolation(options: {
  shPath: string | null;
  killer: GroupKiller;
  folders?: readonly string[];
  requested?: "auto" | "group";
  isRoot?: boolean;
}): Promise<Isolation> {
  const groupOnly = (why: string): Isolation => {
    const isRoot = options.isRoot ?? Deno.uid() === 0;
    const launcher = findGroupLauncher({
      ...(options.folders === undefined ? {} : { folders: options.folders }),
      isRoot,
    });
    const start = launcher === null
      ? (isRoot
        ? "setpriv was not found, so scripts start directly and keep root's capabilities"
        : "sh was not found in the system folders, so scripts start directly") +
        " (a leader that exits at once may leave children behind)"
      : "Each script's group is registered before the script starts" +
        (launcher.setprivPath === null ? "" : ", and it runs without any capability");
    return {
      mode: "process-group",
      unsharePath: null,
      launcher,
      note: `Each script runs as the leader of its own process group, which is ended on ` +
        `timeout; a descendant that leaves the group (setsid) is not reached. ${start}. ${why}`,
    };
  };
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
