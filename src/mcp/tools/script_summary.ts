/**
 * How `skill_list` and `skill_load` describe scripts: the grant and the
 * machine's facts once per answer, and per skill which declared scripts can
 * run here, which are not granted and which are unavailable, with reasons.
 *
 * @module
 */

import * as z from "zod";
import type { ScriptPlan } from "../../scripts/plan.ts";
import type { ScriptService } from "../../scripts/service.ts";
import type { Skill } from "../../skills/skill.ts";

/** A declared script that cannot run here, and why. */
export const scriptReasonShape = z.object({ script: z.string(), reason: z.string() });

/** A script that can run here. */
export const runnableScriptShape = z.object({
  script: z.string(),
  interpreter: z.string(),
  env: z.array(z.string()),
  timeoutMs: z.number().int(),
  envWarning: z.string().optional(),
  isolation: z.enum(["sandbox", "pid-namespace", "process-group"]).optional(),
  sandbox: z.object({
    readFolders: z.number().int(),
    writeFolders: z.number().int(),
    network: z.boolean(),
    networkNote: z.string().optional(),
  }).optional(),
});

/** The per-skill script fields of `skill_list`. */
export const skillScriptsShape = {
  executable: z.boolean().optional(),
  scripts: z.array(runnableScriptShape).optional(),
  ungrantedScripts: z.array(scriptReasonShape).optional(),
  unavailableScripts: z.array(scriptReasonShape).optional(),
  declaredEgress: z.array(z.string()).optional(),
};

/** The server-wide script fields of `skill_list`. */
export const scriptsOverviewShape = {
  grant: z.object({
    from: z.enum(["MCP_SKILL_RUN", "hosted-default", "declaration", "unsubstituted", "blank"]),
    note: z.string().optional(),
    error: z.string().optional(),
  }).optional(),
  environ: z.object({
    scrubbed: z.boolean(),
    method: z.enum(["proc-self-mem", "private-proc", "none"]),
    note: z.string(),
  }).optional(),
  isolation: z.object({
    mode: z.enum(["sandbox", "pid-namespace", "process-group"]),
    note: z.string(),
  }).optional(),
};

/** One script as `skill_load` shows it. */
export const loadedScriptShape = z.object({
  script: z.string(),
  interpreter: z.string(),
  env: z.array(z.string()),
  timeoutMs: z.number().int(),
  canRun: z.boolean(),
  reason: z.string().optional(),
});

type SkillScriptsFields = {
  executable?: boolean;
  scripts?: z.infer<typeof runnableScriptShape>[];
  ungrantedScripts?: z.infer<typeof scriptReasonShape>[];
  unavailableScripts?: z.infer<typeof scriptReasonShape>[];
  declaredEgress?: string[];
};

/**
 * The server-wide script fields: the grant in force, the environ scrub's
 * status and the isolation that applies.
 *
 * @param service The script service.
 * @param plan The plan of the snapshot being answered from.
 * @returns `{grant, environ, isolation}`.
 */
export function scriptsOverview(service: ScriptService, plan: ScriptPlan) {
  return {
    grant: { ...plan.grant },
    environ: { ...service.facts.environ },
    isolation: { mode: service.facts.isolation.mode, note: service.facts.isolation.note },
  };
}

/**
 * One skill's script fields for `skill_list`. A skill is `executable` when
 * at least one of its scripts can run here.
 *
 * @param skill The skill.
 * @param plan The snapshot's plan.
 * @param mode The isolation in force, shown on each runnable script (with,
 *   in `sandbox` mode, how many folders are granted and whether it has the
 *   network; never the folders themselves). @default not shown
 * @returns The fields (lists empty when the skill declares nothing).
 */
export function skillScriptFields(
  skill: Skill,
  plan: ScriptPlan,
  mode?: z.infer<typeof runnableScriptShape>["isolation"],
): SkillScriptsFields {
  const planned = plan.bySkill.get(skill.name) ?? [];
  const runnable = planned.filter((entry) => entry.state === "runnable");
  const fields: SkillScriptsFields = {
    executable: runnable.length > 0,
    scripts: runnable.map((entry) => ({
      script: entry.script,
      interpreter: entry.interpreter,
      env: [...entry.grantedEnv],
      timeoutMs: entry.timeoutMs,
      ...(entry.envWarning === undefined ? {} : { envWarning: entry.envWarning }),
      ...(mode === undefined ? {} : { isolation: mode }),
      ...(mode !== "sandbox" ? {} : {
        sandbox: {
          readFolders: entry.read.length,
          writeFolders: entry.write.length,
          network: entry.network,
          ...(entry.network
            ? {
              networkNote: "Granted network is the host's whole network: the sandbox cannot " +
                "limit it to the declared egress hosts",
            }
            : {}),
        },
      }),
    })),
    ungrantedScripts: planned.filter((entry) => entry.state === "ungranted")
      .map((entry) => ({ script: entry.script, reason: entry.reason ?? "Not granted" })),
    unavailableScripts: planned.filter((entry) => entry.state === "unavailable")
      .map((entry) => ({ script: entry.script, reason: entry.reason ?? "Unavailable" })),
  };
  const egress = skill.scripts?.declaration.declaredEgress ?? [];
  if (egress.length > 0) fields.declaredEgress = [...egress];
  return fields;
}

/**
 * Every declared script of a skill with whether it can run here, for `skill_load`.
 *
 * @param skill The skill.
 * @param plan The snapshot's plan.
 * @returns One entry per declared script, in declared order.
 */
export function loadedScripts(skill: Skill, plan: ScriptPlan): z.infer<typeof loadedScriptShape>[] {
  return (plan.bySkill.get(skill.name) ?? []).map((entry) => ({
    script: entry.script,
    interpreter: entry.interpreter,
    env: [...(entry.state === "runnable" ? entry.grantedEnv : entry.declaredEnv)],
    timeoutMs: entry.timeoutMs,
    canRun: entry.state === "runnable",
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
  }));
}
