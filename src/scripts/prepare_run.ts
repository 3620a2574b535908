/**
 * Turning a `skill_run` request into exactly what would run, or a refusal.
 * Every refusal happens here, before anyone is asked: undeclared, ungranted,
 * unavailable or restart needed, a path that leaves the skill, bad arguments.
 * The preview built here is what the user confirms and what the token signs.
 *
 * @module
 */

import { PathRefusedError, type ResolvedFile, resolveSkillFile } from "../files/path_gate.ts";
import { readBounded } from "../files/bounded_read.ts";
import type { Skill } from "../skills/skill.ts";
import type { ScriptHostFacts } from "./host_facts.ts";
import { isolate } from "./isolation.ts";
import type { PlannedScript, ScriptPlan } from "./plan.ts";
import type { EnvReleaser } from "../sandbox/env_release_client.ts";
import type { RunSpec } from "./runner/run_script.ts";
import { isExecutableFile } from "./runner/executable.ts";
import { SANDBOX_TMP, type SandboxLayout } from "./sandbox/layout.ts";
import { MAX_SHEBANG_BYTES, parseShebang, type Shebang } from "./sandbox/missing_interpreter.ts";
import { buildScriptEnv } from "./script_env.ts";

/** Arguments per run at most. */
export const MAX_ARGS = 64;
/** UTF-8 bytes of all arguments together at most. */
export const MAX_ARGS_BYTES = 8 * 1024;

/** Why a request is refused before anyone is asked. */
export type RunRefusalCode =
  | "INVALID_ARGUMENTS"
  | "SCRIPT_NOT_DECLARED"
  | "SCRIPT_NOT_GRANTED"
  | "SCRIPT_UNAVAILABLE"
  | "SCRIPT_PATH_REFUSED";

/** A refusal, client-safe (no host paths). */
export interface RunRefusal {
  readonly ok: false;
  readonly code: RunRefusalCode;
  readonly message: string;
  readonly hint: string;
}

/** Exactly what will run, as the user sees it before confirming. */
export interface RunPreview {
  readonly willRun: {
    readonly skill: string;
    readonly script: string;
    readonly interpreter: string;
    /** The program and every argument, exactly as passed (no shell). */
    readonly argv: readonly string[];
    /** The skill's folder. */
    readonly cwd: string;
    /** Names of the environment variables the script receives (never values). */
    readonly envNames: readonly string[];
    readonly timeoutMs: number;
  };
  readonly note: string;
  /**
   * Names the script declares and is granted that skillgate has no value for
   * (unset in its environment), so they are NOT passed; sorted; absent when
   * every such name is set. The `note` names them too.
   */
  readonly envUnset?: readonly string[];
  /** Standalone without a grant: which of the user's variables the skill gave itself. */
  readonly envWarning?: string;
}

/** A request ready to confirm and run. */
export interface PreparedRun {
  readonly ok: true;
  readonly planned: PlannedScript;
  readonly preview: RunPreview;
  /** What the runner spawns (wrapped for the isolation in force). */
  readonly spec: RunSpec;
  /** Names of the environment the script receives, sorted. */
  readonly envNames: readonly string[];
  /** The skill folder's real path (the trusted part reads the declaration there again). */
  readonly skillDir: string;
  /** `sandbox` mode: what the script sees (for the missing-mount note). */
  readonly layout?: SandboxLayout;
  /**
   * `sandbox` mode, an `exec` script: its `#!` line as read now (null: none),
   * for the missing-interpreter note.
   */
  readonly shebang?: Shebang | null;
}

/**
 * Checks a request against the plan and the file gate and builds the run.
 *
 * @param skill The skill from the current snapshot.
 * @param request `script` (declared path) and `args` (at most 64 strings
 *   without NUL, at most 8 KiB of UTF-8 together).
 * @param context The snapshot's plan, the start-up facts, `dataDir`, and
 *   `releaseEnv`: the trusted part's release, asked with `namesOnly` which
 *   granted names a run would get (its answer decides which names the
 *   preview lists as passed and which as unset; without it none is passed).
 * @returns The prepared run, or a refusal.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: issue 4, "`skill_run`" (every refusal before anyone is asked).
 */
export async function prepareRun(
  skill: Skill,
  request: { script: string; args: readonly string[] },
  context: {
    plan: ScriptPlan;
    facts: ScriptHostFacts;
    dataDir: string | null;
    releaseEnv?: EnvReleaser;
  },
): Promise<PreparedRun | RunRefusal> {
  const argsRefusal = checkArgs(request.args);
  if (argsRefusal !== null) {
    // Review n7: the hint named the fix for the size caps whatever the refusal was.
    const hint = /NUL character/.test(argsRefusal)
      ? "Remove the NUL character: arguments are C strings, which cannot hold one"
      : /lone surrogate|not a string/.test(argsRefusal)
      ? "Send each argument as well-formed text"
      : "Send fewer or shorter arguments";
    return refuse("INVALID_ARGUMENTS", argsRefusal, hint);
  }
  const scripts = context.plan.bySkill.get(skill.name) ?? [];
  const planned = scripts.find((candidate) => candidate.script === request.script);
  const names = scripts.map((candidate) => candidate.script);
  if (planned === undefined) {
    return refuse(
      "SCRIPT_NOT_DECLARED",
      `Skill "${skill.name}" does not declare a script ${
        JSON.stringify(request.script).slice(0, 200)
      }`,
      names.length === 0
        ? "This skill declares no scripts; follow its instructions without running anything"
        : `Declared scripts: ${names.slice(0, 10).join(", ")}. Only declared scripts can run`,
    );
  }
  if (planned.state === "ungranted") {
    return refuse(
      "SCRIPT_NOT_GRANTED",
      `Script "${planned.script}" of skill "${skill.name}" is not granted to run here`,
      `${planned.reason ?? "Not granted"}. Ask the server's owner, or do the task without it`,
    );
  }
  if (planned.state !== "runnable" || planned.program === null) {
    return refuse(
      "SCRIPT_UNAVAILABLE",
      `Script "${planned.script}" of skill "${skill.name}" cannot run here`,
      planned.reason ?? "Call skill_list to see why",
    );
  }
  let realPath: string;
  let resolved: ResolvedFile;
  try {
    resolved = await resolveSkillFile(skill.realDir, planned.script);
    realPath = resolved.realPath;
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    return refuse(
      "SCRIPT_PATH_REFUSED",
      error.message,
      "The script file changed since it was listed; call skill_list to see the skill's problems",
    );
  }
  if (planned.interpreter === "exec") {
    if (realPath !== planned.program) {
      return refuse(
        "SCRIPT_UNAVAILABLE",
        `Script "${planned.script}" now leads to another file than when skillgate started`,
        "Restart skillgate to run the script as it is now",
      );
    }
    if (!isExecutableFile(realPath)) {
      return refuse(
        "SCRIPT_UNAVAILABLE",
        `Script "${planned.script}" is declared to run itself but is not executable`,
        "The skill's owner must mark it executable (chmod +x) and give it a shebang line",
      );
    }
  }
  const argv = [...programArgv(planned, realPath), ...request.args];
  const env = buildScriptEnv(context.facts.envValues, {
    granted: planned.grantedEnv,
    // In a sandbox only the data folder it mounts (none when refused at start-up).
    dataDir: context.facts.isolation.mode === "sandbox"
      ? context.facts.isolation.sandbox?.dataDir ?? null
      : context.dataDir,
    interpreter: planned.interpreter,
    sandboxTmp: context.facts.isolation.mode === "sandbox" ? SANDBOX_TMP : null,
  });
  // Granted names' values come from the trusted part just before the run (released per run).
  // The preview lists as received only the names the trusted part says a run would get (set in
  // its environment); the others are named as unset, never shown as passed (review n8).
  const released = await grantedNamesSet(planned, skill.realDir, context.releaseEnv);
  const envUnset = planned.grantedEnv.filter((name) => !released.has(name)).sort();
  const envNames = Object.freeze(
    [...new Set([...env.names, ...planned.grantedEnv.filter((name) => released.has(name))])]
      .sort(),
  );
  const wrapped = isolate(argv[0] as string, argv.slice(1), context.facts.isolation, {
    skillDir: skill.realDir,
    read: planned.read,
    write: planned.write,
    network: planned.network,
  });
  const preview: RunPreview = {
    willRun: {
      skill: skill.name,
      script: planned.script,
      interpreter: planned.interpreter,
      argv,
      cwd: skill.realDir,
      envNames,
      timeoutMs: planned.timeoutMs,
    },
    note: "Runs with no shell, stdin closed, in the skill's folder, with only the environment " +
      "names listed; ends after the timeout. " +
      (context.facts.isolation.mode === "sandbox"
        ? `It runs in a sandbox: its skill folder read-only, a private /tmp, ` +
          `${planned.read.length} granted read and ${planned.write.length} granted write ` +
          `folder(s), ${planned.network ? "the host's whole network" : "no network"}.`
        : context.facts.isolation.mode === "pid-namespace"
        ? "It runs in its own PID namespace."
        : "It runs in its own process group.") +
      (envUnset.length === 0 ? "" : ` ${unsetNote(envUnset)}`),
    ...(envUnset.length === 0 ? {} : { envUnset: Object.freeze(envUnset) }),
    ...(planned.envWarning === undefined ? {} : { envWarning: planned.envWarning }),
  };
  const shebang = wrapped.layout !== undefined && planned.interpreter === "exec"
    ? await shebangOf(resolved)
    : undefined;
  return {
    ok: true,
    planned,
    preview,
    spec: {
      program: wrapped.program,
      args: wrapped.args,
      cwd: skill.realDir,
      env: env.env,
      timeoutMs: planned.timeoutMs,
      stopsBeforeExec: wrapped.stopsBeforeExec,
    },
    envNames,
    skillDir: skill.realDir,
    ...(wrapped.layout === undefined ? {} : { layout: wrapped.layout }),
    ...(shebang === undefined ? {} : { shebang }),
  };
}

/** An `exec` script's `#!` line, read through the gate's bounded read; null when unreadable. */
async function shebangOf(file: ResolvedFile): Promise<Shebang | null> {
  try {
    return parseShebang((await readBounded(file, { maxBytes: MAX_SHEBANG_BYTES })).bytes);
  } catch (error) {
    if (error instanceof PathRefusedError) return null;
    throw error;
  }
}

/**
 * Checks `skill_run` arguments: at most {@linkcode MAX_ARGS} strings, none
 * holding NUL, at most {@linkcode MAX_ARGS_BYTES} UTF-8 bytes together.
 *
 * @param args The arguments.
 * @returns A client-safe refusal message, or null when they pass.
 */
export function checkArgs(args: readonly unknown[]): string | null {
  if (args.length > MAX_ARGS) {
    return `At most ${MAX_ARGS} arguments are accepted (got ${args.length})`;
  }
  let bytes = 0;
  for (const [index, arg] of args.entries()) {
    if (typeof arg !== "string") return `Argument ${index} is not a string`;
    if (arg.includes("\0")) return `Argument ${index} contains a NUL character`;
    if (!arg.isWellFormed()) return `Argument ${index} contains a lone surrogate`;
    bytes += new TextEncoder().encode(arg).length;
  }
  if (bytes > MAX_ARGS_BYTES) {
    return `Arguments total ${bytes} bytes; at most ${MAX_ARGS_BYTES} are accepted`;
  }
  return null;
}

/** The granted names the trusted part would release to a run of `planned` (set, allowed). */
async function grantedNamesSet(
  planned: PlannedScript,
  dir: string,
  releaseEnv: EnvReleaser | undefined,
): Promise<Set<string>> {
  if (planned.grantedEnv.length === 0 || releaseEnv === undefined) return new Set();
  const answer = await releaseEnv({
    skill: planned.skill,
    script: planned.script,
    dir,
    names: planned.grantedEnv,
    namesOnly: true,
  });
  return new Set(Object.keys(answer));
}

/** The preview's sentence for declared, granted names that have no value here. */
function unsetNote(names: readonly string[]): string {
  const many = names.length > 1;
  return `Declared and granted but not set in skillgate's environment, so not passed: ` +
    `${names.join(", ")}. If the script needs ${many ? "them" : "it"}, set ` +
    `${many ? "them" : "it"} where skillgate starts and restart it.`;
}

/** The program and the arguments that come before the caller's. */
function programArgv(planned: PlannedScript, realPath: string): string[] {
  const program = planned.program as string;
  switch (planned.interpreter) {
    case "exec":
      return [realPath];
    case "deno":
      return [program, "run", "--no-prompt", "--allow-all", realPath];
    default:
      return [program, realPath];
  }
}

function refuse(code: RunRefusalCode, message: string, hint: string): RunRefusal {
  return { ok: false, code, message, hint };
}
