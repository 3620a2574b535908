/**
 * What may run, decided from three things: each skill's declaration, the
 * owner's grant, and the facts of this machine fixed at start-up (the
 * interpreters found, the worker's run permission, the environment values
 * captured, the environ scrub). The plan is pure and computed per catalog
 * snapshot, so a skill added later is judged against the same start-up facts
 * (and is "restart needed" when they do not cover it).
 *
 * The invariant (property-tested): a runnable script is declared by its skill
 * AND granted (or the declarations stand); the names it receives are declared
 * by it AND granted.
 *
 * @module
 */

import type { PermittedProgram } from "../sandbox/worker_permissions.ts";
import type { Problem } from "../skills/problem.ts";
import type { InterpreterName } from "./declaration.ts";
import { type Grant, type GrantRow, rowRefusal } from "./grant.ts";
import type { InterpreterTable } from "./interpreters.ts";
import type { FolderVerdict } from "./sandbox/grant_folders.ts";
import type { SkillScripts } from "./skill_scripts.ts";

/** The environ scrub's outcome, as `skill_list` shows it. */
export interface EnvironStatus {
  /** Whether skillgate's original environment block is unreadable by scripts. */
  readonly scrubbed: boolean;
  /** `proc-self-mem` (block overwritten), `private-proc` (namespace only) or `none`. */
  readonly method: "proc-self-mem" | "private-proc" | "none";
  readonly note: string;
}

/** Facts fixed at start-up that decide whether a granted script can run here. */
export interface ScriptHost {
  readonly interpreters: InterpreterTable;
  /**
   * Programs on the worker's run permission. Null while the trusted part is
   * computing that permission (every program counts as permitted then).
   */
  readonly permittedPrograms: readonly string[] | null;
  /** Environment names whose values were captured at start-up; null while computing. */
  readonly capturedEnv: readonly string[] | null;
  readonly environ: EnvironStatus;
  readonly hosted: boolean;
  readonly allowUnscrubbed: boolean;
  readonly confirmMode: "ask-user" | "auto" | "refuse";
  /**
   * The grant rows' `read`/`write` folders as the trusted part checked them
   * at start-up (`sandbox/grant_folders.ts`); a refused one costs its row.
   * @default []
   */
  readonly folderVerdicts?: readonly FolderVerdict[];
}

/** A skill as the plan needs it. */
export interface PlanSkill {
  /** Served name (directory name, or `PREFIX__NAME`): the grant is keyed on it. */
  readonly name: string;
  readonly scripts?: SkillScripts | null;
  /** Set for a remote source's skill: its scripts need a grant row in every mode. */
  readonly source?: string;
  /**
   * Set when the skill is kept at its last good entry (its SKILL.md no longer
   * parses, `src/skills/last_good.ts`): what it declares now is unknown, so
   * none of its scripts runs (review r16, A2).
   */
  readonly isLastGood?: boolean;
}

/** Why a kept skill's scripts do not run (review r16, A2). */
export const LAST_GOOD_REASON = "The skill's SKILL.md no longer loads (it is served at its last " +
  "good version), so what it declares now is unknown; fix the SKILL.md first";

/** How one declared script stands. */
export type ScriptState = "runnable" | "ungranted" | "unavailable";

/** One declared script, judged. */
export interface PlannedScript {
  readonly skill: string;
  readonly script: string;
  readonly interpreter: InterpreterName;
  readonly timeoutMs: number;
  /** Names the script declares. */
  readonly declaredEnv: readonly string[];
  /** Names the script receives: declared and granted. Empty unless granted. */
  readonly grantedEnv: readonly string[];
  readonly state: ScriptState;
  /** Why it is not runnable (absent when runnable). */
  readonly reason?: string;
  /**
   * The program the runner spawns: the interpreter's literal path, or the
   * script's real path at discovery for `exec`. Null when unknown.
   */
  readonly program: string | null;
  /** Standalone without a grant: which of the user's variables the skill gave itself. */
  readonly envWarning?: string;
  /** Real paths the sandbox mounts read-only for it (granted `read`). */
  readonly read: readonly string[];
  /** Real paths the sandbox mounts read-write for it (granted `write`). */
  readonly write: readonly string[];
  /** Whether its sandbox keeps the network: egress declared AND `"network": true` granted. */
  readonly network: boolean;
}

/** The judgement of every declared script in a snapshot. */
export interface ScriptPlan {
  readonly grant: { readonly from: Grant["from"]; readonly note?: string; readonly error?: string };
  /** Declared scripts by skill name, in declared order (skills without scripts absent). */
  readonly bySkill: ReadonlyMap<string, readonly PlannedScript[]>;
  /** `grant` and `environ-unscrubbed` problems. */
  readonly problems: readonly Problem[];
}

/** The pseudo-path grant problems point at. */
export const GRANT_PROBLEM_PATH = "MCP_SKILL_RUN";

/**
 * Judges every declared script of every skill against the grant and the
 * start-up facts. Pure.
 *
 * Rules: a grant row grants nothing (a `grant` problem) when it names no
 * served skill, a script the skill does not declare (or whose declaration
 * was refused), an env name that script does not declare, repeats an
 * earlier row, or names a `read`/`write` folder the start-up check refused
 * (`host.folderVerdicts`). A row granting the network to a skill that
 * declares no egress is a `grant` warning: a script has the network only
 * when its skill declares egress AND its row says `"network": true`.
 * Standalone without a grant, every declared script of a local skill is
 * granted its declared names (a remote source's skill is not: its scripts
 * need a row naming it by its served name, in every mode), with an
 * `envWarning` when it has any. A granted script
 * is `unavailable` when its skill is kept at its last good entry (its
 * SKILL.md no longer parses: the declaration in force is unknown), scripts
 * are refused here (confirmation mode `refuse`;
 * hosted with the environ unscrubbed and not allowed), its interpreter was not
 * found, or the start-up facts do not cover it (restart needed).
 *
 * @param skills The skills of one snapshot.
 * @param grant The grant in force.
 * @param host The start-up facts.
 * @returns The plan, frozen.
 *
 * Source: issue 4, "Grant" and "Interpreters"; issue 16 (read, write,
 * network); anchors.md (narrow-only grant).
 */
export function planScripts(
  skills: Iterable<PlanSkill>,
  grant: Grant,
  host: ScriptHost,
): ScriptPlan {
  const problems: Problem[] = [];
  const byName = new Map<string, PlanSkill>();
  for (const skill of skills) byName.set(skill.name, skill);
  const granted = grantedEnvByScript(byName, grant, problems, host.folderVerdicts ?? []);
  const blocked = blockedReason(host);
  if (isEnvironRefused(host)) {
    problems.push({
      path: "environ",
      reason: "environ-unscrubbed",
      severity: "error",
      detail: `skillgate's original environment could not be made unreadable to scripts ` +
        `(${host.environ.note}); hosted, no script runs unless the owner sets ` +
        "MCP_SKILL_ALLOW_UNSCRUBBED=1",
    });
  }
  const bySkill = new Map<string, readonly PlannedScript[]>();
  for (const skill of byName.values()) {
    const scripts = skill.scripts;
    if (scripts === null || scripts === undefined || scripts.declaration.run.length === 0) continue;
    const planned: PlannedScript[] = [];
    for (const declared of scripts.declaration.run) {
      const usable = scripts.scripts.some((script) => script.script === declared.script);
      const entry = granted.get(key(skill.name, declared.script));
      const interpreter = host.interpreters[declared.interpreter];
      const program = declared.interpreter === "exec"
        ? scripts.realPaths[declared.script] ?? null
        : interpreter.available
        ? interpreter.path
        : null;
      const base = {
        skill: skill.name,
        script: declared.script,
        interpreter: declared.interpreter,
        timeoutMs: declared.timeoutMs,
        declaredEnv: declared.env,
        program,
        read: [] as readonly string[],
        write: [] as readonly string[],
        network: false,
      };
      if (!usable) {
        planned.push(freeze({
          ...base,
          grantedEnv: [],
          state: "unavailable",
          reason: skill.scripts?.unusable?.[declared.script] ??
            "The script file is missing or not usable (see problems)",
        }));
        continue;
      }
      if (entry === undefined) {
        planned.push(freeze({
          ...base,
          grantedEnv: [],
          state: "ungranted",
          reason: grant.rows === null && skill.source !== undefined
            ? `A remote skill's scripts run only with an MCP_SKILL_RUN row naming ` +
              `"${skill.name}" and this script`
            : grant.rows === null
            ? "Not granted"
            : (grant.from === "unsubstituted" || grant.from === "blank") &&
                grant.error !== undefined
            ? grant.error
            : `MCP_SKILL_RUN has no usable row for skill "${skill.name}" and script ` +
              `"${declared.script}"`,
        }));
        continue;
      }
      const grantedEnv = declared.env.filter((name) => entry.env.includes(name));
      const egress = scripts.declaration.declaredEgress;
      const envWarning = grant.rows === null && grantedEnv.length > 0
        ? `MCP_SKILL_RUN is not set, so this skill's own declaration decides what it receives: ` +
          `${grantedEnv.join(", ")} from your environment`
        : undefined;
      const unavailable = (skill.isLastGood === true ? LAST_GOOD_REASON : null) ?? blocked ??
        (interpreter.available ? null : interpreter.reason) ??
        restartReason(program, grantedEnv, host);
      planned.push(freeze({
        ...base,
        read: entry.read,
        write: entry.write,
        network: entry.network && egress.length > 0,
        grantedEnv,
        state: unavailable === null ? "runnable" : "unavailable",
        ...(unavailable === null ? {} : { reason: unavailable }),
        ...(envWarning === undefined ? {} : { envWarning }),
      }));
    }
    bySkill.set(skill.name, Object.freeze(planned));
  }
  return Object.freeze({
    grant: Object.freeze({
      from: grant.from,
      ...(grant.note === undefined ? {} : { note: grant.note }),
      ...(grant.error === undefined ? {} : { error: grant.error }),
    }),
    bySkill,
    problems: Object.freeze(problems),
  });
}

/**
 * The programs the worker must be allowed to spawn for the scripts runnable
 * in a plan computed with `permittedPrograms: null`, each with a reason.
 *
 * @param plan A plan computed at start-up.
 * @returns Distinct programs in first-seen order, with the first script that needs each.
 */
export function programsToPermit(plan: ScriptPlan): PermittedProgram[] {
  const programs: PermittedProgram[] = [];
  for (const scripts of plan.bySkill.values()) {
    for (const planned of scripts) {
      if (planned.state !== "runnable" || planned.program === null) continue;
      if (programs.some((program) => program.path === planned.program)) continue;
      programs.push({
        path: planned.program,
        reason: planned.interpreter === "exec"
          ? `the granted script "${planned.script}" of skill "${planned.skill}" runs itself`
          : `interpreter "${planned.interpreter}" of the granted script "${planned.script}" ` +
            `of skill "${planned.skill}"`,
      });
    }
  }
  return programs;
}

/**
 * The environment names whose values must be captured at start-up for the
 * scripts runnable in a plan computed with `capturedEnv: null`.
 *
 * @param plan A plan computed at start-up.
 * @returns Distinct granted names, sorted.
 */
export function envToCapture(plan: ScriptPlan): string[] {
  const names = new Set<string>();
  for (const scripts of plan.bySkill.values()) {
    for (const planned of scripts) {
      if (planned.state === "runnable") planned.grantedEnv.forEach((name) => names.add(name));
    }
  }
  return [...names].sort();
}

/**
 * Whether no script may run because skillgate is hosted, its original
 * environment could not be made unreadable to scripts, and the owner did not
 * accept that (`MCP_SKILL_ALLOW_UNSCRUBBED=1`).
 *
 * @param host Whether hosted, the environ scrub's outcome and the owner's acceptance.
 * @returns True when every script is refused for it.
 *
 * Source: the security-first anchor's boot-time scrub (anchors.md); issue 4, "Secrets".
 */
export function isEnvironRefused(
  host: Pick<ScriptHost, "hosted" | "environ" | "allowUnscrubbed">,
): boolean {
  return host.hosted && !host.environ.scrubbed && !host.allowUnscrubbed;
}

function blockedReason(host: ScriptHost): string | null {
  if (host.confirmMode === "refuse") {
    return "MCP_CONFIRM_MODE is refuse: this server runs no scripts";
  }
  if (isEnvironRefused(host)) {
    return "Hosted, and skillgate's environment could not be made unreadable to scripts; " +
      "the owner may accept that with MCP_SKILL_ALLOW_UNSCRUBBED=1";
  }
  return null;
}

function restartReason(
  program: string | null,
  grantedEnv: readonly string[],
  host: ScriptHost,
): string | null {
  if (program === null) return "Restart needed: the script's program is not known";
  if (host.permittedPrograms !== null && !host.permittedPrograms.includes(program)) {
    return "Restart needed: this script's program was not granted when skillgate started, so " +
      "the sandbox cannot spawn it; restart skillgate to pick it up";
  }
  if (host.capturedEnv !== null) {
    const missing = grantedEnv.filter((name) => !host.capturedEnv?.includes(name));
    if (missing.length > 0) {
      return `Restart needed: the environment name${missing.length === 1 ? "" : "s"} ` +
        `${missing.join(", ")} ${missing.length === 1 ? "was" : "were"} not granted when ` +
        "skillgate started; restart skillgate to pick them up";
    }
  }
  return null;
}

/** What one row grants a script. */
interface Granted {
  readonly env: readonly string[];
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly network: boolean;
}

/** What is granted by `skill\0script`, after checking every row against the declarations. */
function grantedEnvByScript(
  skills: ReadonlyMap<string, PlanSkill>,
  grant: Grant,
  problems: Problem[],
  folderVerdicts: readonly FolderVerdict[],
): Map<string, Granted> {
  const granted = new Map<string, Granted>();
  const report = (detail: string) =>
    problems.push({ path: GRANT_PROBLEM_PATH, reason: "grant", severity: "error", detail });
  if (grant.error !== undefined) report(`${grant.error}; no script may run`);
  for (const refused of grant.refusedRows) {
    report(`Row ${refused.index} grants nothing: ${refused.detail}`);
  }
  if (grant.rows === null) {
    for (const skill of skills.values()) {
      // A remote skill's own declaration never grants it anything: only a row naming it does.
      if (skill.source !== undefined) continue;
      for (const script of skill.scripts?.scripts ?? []) {
        granted.set(key(skill.name, script.script), {
          env: script.env,
          read: [],
          write: [],
          network: false,
        });
      }
    }
    return granted;
  }
  grant.rows.forEach((row: GrantRow, index) => {
    const where = `Row ${index} (skill "${clip(row.skill)}", script "${clip(row.script)}")`;
    const skill = skills.get(row.skill);
    if (skill === undefined) return report(`${where} grants nothing: no such skill is served`);
    const declared = skill.scripts?.scripts.find((script) => script.script === row.script);
    const verdict = folderVerdicts.find((candidate) => candidate.index === index);
    const refusal = rowRefusal(
      row,
      declared?.env ?? null,
      verdict !== undefined && "refused" in verdict ? verdict.refused : undefined,
    );
    if (refusal === "undeclared-script") {
      return report(
        `${where} grants nothing: the skill does not declare that script (or its declaration ` +
          "was refused)",
      );
    }
    if (refusal !== null && "undeclared" in refusal) {
      return report(
        `${where} grants nothing: the script does not declare ` +
          refusal.undeclared.slice(0, 5).map((name) => `"${clip(name)}"`).join(", "),
      );
    }
    const id = key(row.skill, row.script);
    if (granted.has(id)) return report(`${where} grants nothing: an earlier row grants it`);
    if (refusal !== null) return report(`${where} grants nothing: ${refusal.refusedFolder}`);
    const folders = verdict !== undefined && !("refused" in verdict) ? verdict : undefined;
    if (row.network && (skill.scripts?.declaration.declaredEgress.length ?? 0) === 0) {
      problems.push({
        path: GRANT_PROBLEM_PATH,
        reason: "grant",
        severity: "warning",
        detail: `${where} grants the network, but the skill declares no egress hosts, so the ` +
          "script runs without network",
      });
    }
    granted.set(id, {
      env: row.env,
      read: folders === undefined ? [] : folders.read,
      write: folders === undefined ? [] : folders.write,
      network: row.network,
    });
  });
  return granted;
}

function key(skill: string, script: string): string {
  return `${skill}\u0000${script}`;
}

function freeze(planned: PlannedScript): PlannedScript {
  return Object.freeze({
    ...planned,
    declaredEnv: Object.freeze([...planned.declaredEnv]),
    grantedEnv: Object.freeze([...planned.grantedEnv]),
    read: Object.freeze([...planned.read]),
    write: Object.freeze([...planned.write]),
  });
}

function clip(text: string): string {
  const printable = JSON.stringify(text).slice(1, -1);
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
