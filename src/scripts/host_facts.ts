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
import { parseGrant } from "./grant.ts";
import type { InterpreterTable } from "./interpreters.ts";
import type { Isolation } from "./isolation.ts";
import {
  type EnvironStatus,
  envToCapture,
  planScripts,
  programsToPermit,
  type ScriptHost,
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
}

/**
 * Decides the start-up facts from the catalog as it is now: which scripts
 * are granted, hence which programs the worker may spawn (in `pid-namespace`
 * mode the runner spawns `unshare`, so that is the one program on the run
 * permission) and which environment values are captured.
 *
 * @param config The configuration (grant, hosted, confirmation mode, ...).
 * @param catalog The catalog built by the trusted part at start-up.
 * @param options The interpreters looked up, the environ status, the
 *   isolation probed and an environment lookup.
 * @returns The facts for the worker and its run permission entries.
 *
 * Source: issue 4, "Interpreters" (run permission computed at start-up).
 */
export function prepareScriptHost(
  config: Config,
  catalog: Catalog,
  options: {
    interpreters: InterpreterTable;
    environ: EnvironStatus;
    isolation: Isolation;
    getEnv: (name: string) => string | undefined;
  },
): { facts: ScriptHostFacts; run: PermittedProgram[] } {
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
  });
  const host: ScriptHost = {
    interpreters: options.interpreters,
    permittedPrograms: null,
    capturedEnv: null,
    environ: options.environ,
    hosted: config.hosted,
    allowUnscrubbed: config.scripts.allowUnscrubbed,
    confirmMode: config.scripts.confirmMode,
  };
  const plan = planScripts(catalog.skills, grant, host);
  const programs = programsToPermit(plan);
  const envValues: Record<string, string> = {};
  const capturedEnvNames = envToCapture(plan);
  for (const name of [...BASE_ENV_NAMES, ...capturedEnvNames]) {
    const value = options.getEnv(name);
    if (value !== undefined) envValues[name] = value;
  }
  const unshare = options.isolation.unsharePath;
  const run: PermittedProgram[] = programs.length === 0
    ? []
    : options.isolation.mode === "pid-namespace" && unshare !== null
    ? [{
      path: unshare,
      reason: "every granted script runs through unshare, in its own PID namespace",
    }]
    : programs;
  return {
    facts: Object.freeze({
      interpreters: options.interpreters,
      permittedPrograms: Object.freeze(programs.map((program) => program.path)),
      envValues: Object.freeze(envValues),
      capturedEnvNames: Object.freeze(capturedEnvNames),
      environ: options.environ,
      isolation: options.isolation,
    }),
    run,
  };
}
