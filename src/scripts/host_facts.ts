/**
 * The start-up facts about running scripts, gathered once in the trusted
 * part and handed to the worker with the configuration: the interpreters
 * found, the programs put on the worker's run permission, the environment
 * values scripts may receive, the environ scrub's outcome and the isolation.
 * The worker cannot widen any of them; a script added later that they do not
 * cover is "restart needed".
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { PermittedProgram } from "../sandbox/worker_permissions.ts";
import type { Catalog } from "../skills/skill.ts";
import type { Grant } from "./grant.ts";
import type { InterpreterTable } from "./interpreters.ts";
import type { Isolation } from "./isolation.ts";
import type { FolderVerdict } from "./sandbox/grant_folders.ts";
import {
  type EnvironStatus,
  envToCapture,
  planScripts,
  programsToPermit,
  type ScriptHost,
  type ScriptPlan,
} from "./plan.ts";
import { BASE_ENV_NAMES } from "./script_env.ts";

/** What the worker learns about running scripts. Plain data (it crosses postMessage). */
export interface ScriptHostFacts {
  readonly interpreters: InterpreterTable;
  /**
   * Programs a script may be started with; null when every granted script is
   * spawned through the isolation mode's one launcher (the worker's whole run
   * permission), which can start any allowlisted interpreter or `exec` script.
   */
  readonly permittedPrograms: readonly string[] | null;
  /**
   * Values of the base names only (`PATH`, `HOME`, ...). Granted names' values
   * are released per run by the trusted part (`src/sandbox/env_release.ts`).
   */
  readonly envValues: Readonly<Record<string, string>>;
  /**
   * The names the trusted part may release: the grant rows' names; null
   * standalone without a grant (the declarations stand); a name outside it
   * would get no value, so the plan refuses the script ("restart needed").
   */
  readonly capturedEnvNames: readonly string[] | null;
  readonly environ: EnvironStatus;
  readonly isolation: Isolation;
  /** The grant rows' folders as checked at start-up (real paths, or why refused). */
  readonly folderVerdicts: readonly FolderVerdict[];
}

/**
 * The facts a plan is judged against: the start-up facts plus the owner's
 * settings from the configuration (hosted, unscrubbed accepted, confirmation
 * mode). The one place both the trusted part and the worker build it.
 *
 * @param config The configuration.
 * @param facts The interpreters, the environ status, and the permitted
 *   programs and captured names (null while the trusted part computes them).
 * @returns The host for `planScripts`.
 */
export function scriptHostOf(
  config: Config,
  facts: Pick<ScriptHostFacts, "interpreters" | "environ" | "folderVerdicts"> & {
    readonly permittedPrograms: readonly string[] | null;
    readonly capturedEnvNames: readonly string[] | null;
  },
): ScriptHost {
  return {
    interpreters: facts.interpreters,
    permittedPrograms: facts.permittedPrograms,
    capturedEnv: facts.capturedEnvNames,
    environ: facts.environ,
    hosted: config.hosted,
    allowUnscrubbed: config.scripts.allowUnscrubbed,
    confirmMode: config.scripts.confirmMode,
    folderVerdicts: facts.folderVerdicts,
  };
}

/**
 * Decides the worker's start-up facts and run list from the grant alone, no
 * skill read (issue 13): when `mayRun`, the one launcher of the isolation
 * mode (or, in a mode without one, every allowlisted interpreter found);
 * granted names come from the grant rows; values of the base names only.
 *
 * @param config The configuration.
 * @param options Whether the grant can let anything run (grant not empty, no
 *   refusal), the interpreters, environ status, isolation, folder verdicts,
 *   the grant and an environment lookup.
 * @returns The facts for the worker and the programs on its run list, each with why.
 *
 * Source: issue 13 ("the run list is the one launcher whenever the grant can
 * let anything run").
 */
export function grantedFacts(
  _config: Config,
  options: {
    mayRun: boolean;
    grant: Grant;
    interpreters: InterpreterTable;
    environ: EnvironStatus;
    isolation: Isolation;
    folderVerdicts?: readonly FolderVerdict[];
    getEnv: (name: string) => string | undefined;
  },
): { facts: ScriptHostFacts; programs: PermittedProgram[] } {
  const launcher = launcherOf(options.isolation);
  let programs: PermittedProgram[] = [];
  if (options.mayRun && launcher !== null) {
    programs = [{ path: launcher, reason: "every granted script is spawned through it" }];
  } else if (options.mayRun) {
    programs = Object.entries(options.interpreters).flatMap(([name, entry]) =>
      entry.available && entry.path !== null
        ? [{ path: entry.path, reason: `allowlisted interpreter "${name}"` }]
        : []
    );
  }
  const envValues: Record<string, string> = {};
  for (const name of BASE_ENV_NAMES) {
    const value = options.getEnv(name);
    if (value !== undefined) envValues[name] = value;
  }
  const rows = options.grant.rows;
  const capturedEnvNames = rows === null
    ? null
    : Object.freeze([...new Set(rows.flatMap((row) => row.env))].sort());
  return {
    facts: Object.freeze({
      interpreters: options.interpreters,
      permittedPrograms: launcher !== null
        ? null
        : Object.freeze(programs.map((program) => program.path)),
      envValues: Object.freeze(envValues),
      capturedEnvNames: options.mayRun ? capturedEnvNames : Object.freeze([]),
      environ: options.environ,
      isolation: options.isolation,
      folderVerdicts: Object.freeze([...(options.folderVerdicts ?? [])]),
    }),
    programs,
  };
}

/**
 * The one program every script is spawned through in this isolation mode
 * (what `isolate()` returns as the program), or null when the mode has none.
 *
 * @param isolation The probed isolation.
 * @returns bwrap, unshare, setpriv or the group launcher `sh`, or null.
 */
export function launcherOf(isolation: Isolation): string | null {
  if (isolation.mode === "sandbox" && isolation.sandbox != null) return isolation.sandbox.bwrapPath;
  if (isolation.mode === "pid-namespace" && isolation.unsharePath !== null) {
    return isolation.unsharePath;
  }
  const launcher = isolation.mode === "process-group" ? isolation.launcher ?? null : null;
  if (launcher === null) return null;
  return launcher.setprivPath ?? launcher.shPath;
}

/**
 * Decides the start-up facts from the catalog as it is now: which scripts
 * are granted, hence which programs they need (the worker's run permission
 * is composed from them in `src/sandbox/worker_set.ts`) and which
 * environment values are captured.
 *
 * @param config The configuration (hosted, confirmation mode, ...).
 * @param catalog The catalog built by the trusted part at start-up.
 * @param options The grant in force, the interpreters looked up, the environ
 *   status, the isolation probed and an environment lookup.
 * @returns The facts for the worker, and the programs the granted scripts
 *   need, each with why.
 *
 * Source: issue 4, "Interpreters" (run permission computed at start-up).
 */
export function prepareScriptHost(
  config: Config,
  catalog: Catalog,
  options: {
    grant: Grant;
    interpreters: InterpreterTable;
    environ: EnvironStatus;
    isolation: Isolation;
    folderVerdicts?: readonly FolderVerdict[];
    getEnv: (name: string) => string | undefined;
  },
): { facts: ScriptHostFacts; programs: PermittedProgram[]; plan: ScriptPlan } {
  const folderVerdicts = Object.freeze([...(options.folderVerdicts ?? [])]);
  const host = scriptHostOf(config, {
    interpreters: options.interpreters,
    environ: options.environ,
    folderVerdicts,
    permittedPrograms: null,
    capturedEnvNames: null,
  });
  const plan = planScripts(catalog.skills, options.grant, host);
  const programs = programsToPermit(plan);
  const envValues: Record<string, string> = {};
  const capturedEnvNames = envToCapture(plan);
  for (const name of [...BASE_ENV_NAMES, ...capturedEnvNames]) {
    const value = options.getEnv(name);
    if (value !== undefined) envValues[name] = value;
  }
  return {
    facts: Object.freeze({
      interpreters: options.interpreters,
      permittedPrograms: Object.freeze(programs.map((program) => program.path)),
      envValues: Object.freeze(envValues),
      capturedEnvNames: Object.freeze(capturedEnvNames),
      environ: options.environ,
      isolation: options.isolation,
      folderVerdicts,
    }),
    programs,
    plan,
  };
}
