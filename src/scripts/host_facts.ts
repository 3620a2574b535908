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
  /** Programs the scripts granted at start-up need (interpreters, `exec` scripts). */
  readonly permittedPrograms: readonly string[];
  /** Values of the base names and of every name granted at start-up (unset ones absent). */
  readonly envValues: Readonly<Record<string, string>>;
  /** Every name granted at start-up, set or not; a later grant outside it needs a restart. */
  readonly capturedEnvNames: readonly string[];
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
