/**
 * The table `skillgate list` prints for a person: one row per skill (name,
 * files, size, scripts when any skill declares one, description cut to the
 * width), the scripts that cannot run with why, then the problems grouped by
 * severity. Pure, so the layout is tested without a terminal.
 *
 * @module
 */

import type { SkillListAnswer } from "../mcp/tools/skill_list.ts";
import { problemLine } from "./problem_line.ts";
import { cutToWidth, oneLine, oneLineName, padEnd } from "./terminal_text.ts";

/** Widest name column; longer names are cut with `…`. */
const MAX_NAME_COLUMNS = 40;
/** Columns between table cells. */
const GAP = "  ";

/** Options of {@linkcode renderListTable}. */
export interface ListTableOptions {
  /** Columns of the output; rows are cut to fit (problem lines are not). */
  readonly columns: number;
}

/**
 * Renders the catalog as text.
 *
 * @param answer The whole-catalog answer (see `fullListAnswer()`).
 * @param options The width to fit rows into.
 * @returns Lines ending in a newline: a heading with the roots, the skill
 *   table (or "No skills found"; a SCRIPTS column, e.g. `1 runnable, 1 ungranted` (`N refused`: entries refused as
 *   declared, each also in the errors),
 *   when any skill declares a script), a `Scripts that cannot run (N):`
 *   section (each `skill: script: reason`, ungranted first) when some cannot,
 *   then `Errors (N):` and `Warnings (N):` sections, each problem as
 *   `path:line:column: severity reason: detail`.
 *
 * Source: newcomer 7's finding "`skillgate list` (table) hides script state
 * from the owner" (the owner is the one who grants).
 */
export function renderListTable(answer: SkillListAnswer, options: ListTableOptions): string {
  const lines: string[] = [];
  const count = answer.skills.length;
  lines.push(
    `${count} skill${count === 1 ? "" : "s"} from ${answer.roots.length} ` +
      `root${answer.roots.length === 1 ? "" : "s"}${answer.hosted ? " (hosted)" : ""}:`,
  );
  for (const root of answer.roots) lines.push(`  ${oneLineName(root.path)} (${root.from})`);
  lines.push("");
  if (count === 0) lines.push("No skills found.");
  else lines.push(...skillRows(answer.skills, options.columns));
  lines.push(...scriptSection(answer.skills));
  lines.push(...problemSections(answer.problems));
  return lines.map((line) => `${line}\n`).join("");
}

/**
 * Formats a byte count for people: `512 B`, `19.6 KiB`, `3.2 MiB`.
 *
 * @param bytes A non-negative whole number of bytes.
 * @returns The size with a binary unit, one decimal above bytes.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

type ListedSkill = SkillListAnswer["skills"][number];

/**
 * How many of a skill's declared scripts run here, are not granted, are
 * unavailable, or were refused as declared (each also an error line below).
 */
function scriptCounts(
  skill: ListedSkill,
): { runs: number; ungranted: number; unavailable: number; refused: number } {
  return {
    runs: skill.scripts?.length ?? 0,
    ungranted: skill.ungrantedScripts?.length ?? 0,
    unavailable: skill.unavailableScripts?.length ?? 0,
    refused: skill.refusedDeclarations ?? 0,
  };
}

/** The SCRIPTS cell: `-` when none is declared, else the non-zero counts. */
function scriptCell(skill: ListedSkill): string {
  const counts = scriptCounts(skill);
  const parts = [
    ...(counts.runs > 0 ? [`${counts.runs} runnable`] : []),
    ...(counts.ungranted > 0 ? [`${counts.ungranted} ungranted`] : []),
    ...(counts.unavailable > 0 ? [`${counts.unavailable} unavailable`] : []),
    ...(counts.refused > 0 ? [`${counts.refused} refused`] : []),
  ];
  return parts.length === 0 ? "-" : parts.join(", ");
}

function skillRows(skills: readonly ListedSkill[], columns: number): string[] {
  const names = skills.map((skill) => oneLineName(skill.name));
  const nameWidth = Math.min(
    MAX_NAME_COLUMNS,
    Math.max(4, ...names.map((name) => [...name].length)),
  );
  const files = skills.map((skill) => String(skill.files));
  const sizes = skills.map((skill) => formatBytes(skill.bytes));
  const hasScripts = skills.some((skill) => scriptCell(skill) !== "-");
  const scripts = skills.map((skill) => hasScripts ? scriptCell(skill) : "");
  const filesWidth = Math.max(5, ...files.map((text) => text.length));
  const sizeWidth = Math.max(4, ...sizes.map((text) => text.length));
  const scriptsWidth = hasScripts ? Math.max(7, ...scripts.map((text) => text.length)) : 0;
  const descriptionWidth = columns - nameWidth - filesWidth - sizeWidth - GAP.length * 3 -
    (hasScripts ? scriptsWidth + GAP.length : 0);
  const row = (name: string, file: string, size: string, script: string, description: string) =>
    (padEnd(cutToWidth(name, nameWidth), nameWidth) + GAP + file.padStart(filesWidth) + GAP +
      size.padStart(sizeWidth) + GAP + (hasScripts ? script.padEnd(scriptsWidth) + GAP : "") +
      cutToWidth(description, descriptionWidth)).trimEnd();
  return [
    row("NAME", "FILES", "SIZE", "SCRIPTS", "DESCRIPTION"),
    ...skills.map((skill, index) =>
      row(
        names[index] ?? "",
        files[index] ?? "",
        sizes[index] ?? "",
        scripts[index] ?? "",
        oneLine(skill.description),
      )
    ),
  ];
}

/** Every declared script that cannot run, with why (the owner is the one who grants). */
function scriptSection(skills: readonly ListedSkill[]): string[] {
  const lines: string[] = [];
  for (const key of ["ungrantedScripts", "unavailableScripts"] as const) {
    for (const skill of skills) {
      for (const entry of skill[key] ?? []) {
        lines.push(
          `  ${oneLineName(skill.name)}: ${oneLineName(entry.script)}: ` +
            `${key === "ungrantedScripts" ? "not granted" : "unavailable"}: ${
              oneLine(entry.reason)
            }`,
        );
      }
    }
  }
  return lines.length === 0 ? [] : ["", `Scripts that cannot run (${lines.length}):`, ...lines];
}

function problemSections(problems: SkillListAnswer["problems"]): string[] {
  const lines: string[] = [];
  for (const severity of ["error", "warning"] as const) {
    const group = problems.filter((problem) => problem.severity === severity);
    if (group.length === 0) continue;
    lines.push("", `${severity === "error" ? "Errors" : "Warnings"} (${group.length}):`);
    for (const problem of group) {
      lines.push(`  ${problemLine(problem, { isFrontmatterLocated: true })}`);
    }
  }
  if (problems.length === 0) lines.push("", "No problems found.");
  return lines;
}
