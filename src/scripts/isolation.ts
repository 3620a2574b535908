/**
 * Where bubblewrap (`bwrap`) is installed and can build a sandbox here, a
 * script runs in one (`sandbox/layout.ts` says exactly what it sees): the
 * strongest mode, picked first by `--isolation=auto` and demanded by
 * `--isolation=sandbox`.
 *
 * Else, where the kernel allows an unprivileged PID namespace, a script runs inside
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
import { SYSTEM_FOLDERS } from "./system_folders.ts";
import type { GroupKiller } from "./runner/group_killer.ts";
import { runScript } from "./runner/run_script.ts";
import type { ProtectedFolders } from "./sandbox/grant_folders.ts";
import {
  bwrapArgs,
  type SandboxBase,
  type SandboxLayout,
  sandboxLayout,
  type SandboxRequest,
} from "./sandbox/layout.ts";
import { gatherSandboxBase } from "./sandbox/system_mounts.ts";

/** The isolation modes, strongest first. */
export const ISOLATION_MODES = ["sandbox", "pid-namespace", "process-group"] as const;

/** One of {@linkcode ISOLATION_MODES}. */
export type IsolationMode = typeof ISOLATION_MODES[number];

/** What the owner asked for with `--isolation`. */
export type IsolationRequest = "auto" | "sandbox" | "pid-namespace" | "group";

/** How scripts are contained. */
export interface Isolation {
  /**
   * `sandbox` (bubblewrap), `pid-namespace` (group plus namespace) or
   * `process-group` (group only).
   */
  readonly mode: IsolationMode;
  /** Absolute path of `unshare` in `pid-namespace` mode, else null. */
  readonly unsharePath: string | null;
  readonly note: string;
  /** `sandbox` mode: the host facts every sandbox is built from. */
  readonly sandbox?: SandboxBase | null;
  /**
   * Set when the owner demanded a mode (`--isolation=sandbox`) this host
   * cannot give: why, and what to install. skillgate refuses to start.
   */
  readonly refusal?: string;
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
 * the environment, make the script the kernel's first choice when memory
 * runs out (`oom_score_adj` 1000, inherited by everything it starts; raising
 * one's own needs no privilege; a refusal is ignored), so a script that eats
 * memory is ended before skillgate or its client (newcomer n9, F7), then
 * become the script (`$0` is a label; `$@` is the program and its
 * arguments).
 */
export const LAUNCHER_SCRIPT = "kill -STOP $$; unset PWD OLDPWD; " +
  '{ echo 1000 >/proc/self/oom_score_adj; } 2>/dev/null; exec "$@"';

/** The `setpriv` arguments that leave the script no capability, even as root. */
export const CAPABILITY_DROP_ARGS: readonly string[] = Object.freeze([
  "--bounding-set=-all",
  "--inh-caps=-all",
  "--ambient-caps=-all",
  "--no-new-privs",
  "--",
]);

/** Folders searched for `unshare` (a system tool; PATH is not consulted). */
export { SYSTEM_FOLDERS };

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

/** What the runner spawns for one script. */
export interface Isolated {
  readonly program: string;
  readonly args: string[];
  readonly stopsBeforeExec: boolean;
  /** `sandbox` mode: what the script sees. */
  readonly layout?: SandboxLayout;
}

/** A script's place, for the sandbox: everything of a `SandboxRequest` but the program. */
export type SandboxPlace = Omit<SandboxRequest, "program">;

/** The place of a run with nothing of a skill: the start-up probe, the run permission. */
export const NO_PLACE: SandboxPlace = Object.freeze({
  skillDir: null,
  read: [],
  write: [],
  network: false,
});

/**
 * Wraps a program for the isolation in force.
 *
 * @param program Absolute program path.
 * @param args Its arguments.
 * @param isolation The isolation decided at start-up.
 * @param place `sandbox` mode: the skill folder, granted folders and network.
 *   @default {@linkcode NO_PLACE}
 * @returns What the runner spawns: `bwrap` with the sandbox's arguments (and
 *   its layout); `unshare` with the namespace arguments; in `process-group`
 *   mode the launcher (`setpriv` then `sh` when root, else `sh`) with
 *   `stopsBeforeExec: true`; or the program itself when there is no launcher.
 */
export function isolate(
  program: string,
  args: readonly string[],
  isolation: Isolation,
  place: SandboxPlace = NO_PLACE,
): Isolated {
  if (
    isolation.mode === "sandbox" && isolation.sandbox !== undefined && isolation.sandbox !== null
  ) {
    const layout = sandboxLayout(isolation.sandbox, { ...place, program });
    return {
      program: isolation.sandbox.bwrapPath,
      args: [...bwrapArgs(layout), program, ...args],
      stopsBeforeExec: false,
      layout,
    };
  }
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

/** What to install when bubblewrap is missing, for the refusal and the README. */
export const BWRAP_INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; " +
  "Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap) and restart skillgate";

/** What to do when the kernel or AppArmor refuses bubblewrap's user namespace. */
export const USERNS_HINT = "the kernel refused an unprivileged user namespace: on Ubuntu 24.04 " +
  "and later AppArmor restricts them (allow bwrap with an AppArmor profile, or set " +
  "kernel.apparmor_restrict_unprivileged_userns=0); in a container, run it with user " +
  "namespaces allowed (Docker: --security-opt seccomp=unconfined --security-opt " +
  "apparmor=unconfined, or install bwrap setuid)";

/**
 * Checks at start-up, once, which isolation scripts get here: a bubblewrap
 * sandbox (runs `sh -c 'echo $$'` in one and expects a pid of its own
 * namespace), else a PID namespace (the same through `unshare`, expecting
 * pid 1), else a process group.
 *
 * @param options `shPath`: an absolute `sh` (or null); `killer`: ends the
 *   probes' groups; `folders`: where to look for `bwrap`, `unshare`, `sh` and
 *   `setpriv`; `requested`: the owner's `--isolation` @default "auto"
 *   (`group` skips the probes, `pid-namespace` skips the sandbox, `sandbox`
 *   sets `refusal` when there is none); `isRoot`: whether skillgate runs as
 *   uid 0 @default `Deno.uid() === 0`; `interpreterPrograms` and
 *   `protectedFolders`: for the sandbox's interpreter folders; `dataDir`:
 *   the host's `MCP_DATA_DIR`, mounted read-write. @default none
 * @returns The isolation, with a note saying which and why.
 *
 * Requires `--allow-run` for `bwrap` and `unshare`, `--allow-read` on the folders.
 */
export async function probeIsolation(options: {
  shPath: string | null;
  killer: GroupKiller;
  folders?: readonly string[];
  requested?: IsolationRequest;
  isRoot?: boolean;
  interpreterPrograms?: readonly string[];
  protectedFolders?: ProtectedFolders;
  dataDir?: string | null;
}): Promise<Isolation> {
  const requested = options.requested ?? "auto";
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
        `timeout; a descendant that leaves the group (setsid) is not reached. It can read and ` +
        `write whatever skillgate's user can, and reach the network. ${start}. ${why}`,
    };
  };
  if (requested === "group") {
    return groupOnly(
      "The owner chose --isolation=group, so the worker's run permission names the " +
        "interpreters themselves",
    );
  }
  let noSandbox = "the owner chose --isolation=pid-namespace";
  if (requested !== "pid-namespace") {
    const sandbox = await probeSandbox(options);
    if (typeof sandbox !== "string") return sandbox;
    noSandbox = sandbox;
    if (requested === "sandbox") {
      return { ...groupOnly(""), refusal: `--isolation=sandbox: no sandbox here: ${sandbox}` };
    }
  }
  const fallback = (why: string) => groupOnly(`No sandbox (${noSandbox}). ${why}`);
  if (Deno.build.os !== "linux") return fallback("PID namespaces exist only on Linux");
  const unsharePath = findProgram("unshare", options.folders ?? SYSTEM_FOLDERS);
  if (unsharePath === undefined) return fallback("unshare was not found");
  if (options.shPath === null) return fallback("sh was not found to probe with");
  const candidate: Isolation = { mode: "pid-namespace", unsharePath, note: "" };
  const outcome = await probeRun(options.shPath, candidate, options.killer);
  if (outcome.exitCode !== 0 || outcome.stdout.trim() !== "1") {
    const why = outcome.spawnError ?? outcome.stderr.trim().split("\n")[0] ?? "";
    return fallback(
      `An unprivileged PID namespace is not available here (${why.slice(0, 200)})`,
    );
  }
  return {
    mode: "pid-namespace",
    unsharePath,
    note: "Each script runs in its own PID namespace (and process group): when it ends or " +
      "times out, every process it started ends too, and its /proc shows only its own " +
      "processes. It can still read and write whatever skillgate's user can, and reach the " +
      `network. No sandbox: ${noSandbox}`,
  };
}

/** The sandbox when bwrap is here and works, else why not (with what to do). */
async function probeSandbox(options: {
  shPath: string | null;
  killer: GroupKiller;
  folders?: readonly string[];
  interpreterPrograms?: readonly string[];
  protectedFolders?: ProtectedFolders;
  dataDir?: string | null;
}): Promise<Isolation | string> {
  if (Deno.build.os !== "linux") return "bubblewrap exists only on Linux";
  const found = findProgram("bwrap", options.folders ?? SYSTEM_FOLDERS);
  if (found === undefined) return `bwrap was not found: ${BWRAP_INSTALL_HINT}`;
  if (options.shPath === null) return "sh was not found to probe with";
  const bwrapPath = Deno.realPathSync(found);
  const base = gatherSandboxBase(
    bwrapPath,
    [options.shPath, ...(options.interpreterPrograms ?? [])],
    options.protectedFolders ?? { roots: [], homes: [], skillgate: [] },
    options.dataDir ?? null,
  );
  const candidate: Isolation = { mode: "sandbox", unsharePath: null, note: "", sandbox: base };
  const outcome = await probeRun(options.shPath, candidate, options.killer);
  const pid = Number(outcome.stdout.trim());
  if (outcome.exitCode !== 0 || !(pid >= 1 && pid <= 3)) {
    const why = (outcome.spawnError ?? outcome.stderr.trim().split("\n")[0] ?? "").slice(0, 200);
    return /namespace|uid map|permission|not permitted/i.test(why)
      ? `bwrap could not build a sandbox (${why}): ${USERNS_HINT}`
      : `bwrap could not build a sandbox (${why})`;
  }
  return {
    mode: "sandbox",
    unsharePath: null,
    sandbox: base,
    note: "Each script runs in a bubblewrap sandbox: it sees the system folders, its " +
      "interpreter, its own skill folder (read-only), a private /tmp (also HOME, removed " +
      "after the run) and only the folders its grant row names; no other skill, root or home " +
      "folder; its own PID, IPC, UTS and user namespaces; no network unless the skill " +
      'declares egress AND its grant row says "network": true (then the host\'s whole ' +
      "network: bubblewrap cannot filter by host)",
  };
}

/** Runs `sh -c 'echo $$'` under an isolation candidate. */
async function probeRun(shPath: string, candidate: Isolation, killer: GroupKiller) {
  const wrapped = isolate(shPath, ["-c", "echo $$"], candidate);
  return await runScript({
    program: wrapped.program,
    args: wrapped.args,
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 5_000,
  }, { killer, graceMs: 500, drainMs: 500, pipeDeadlineMs: 500 });
}
