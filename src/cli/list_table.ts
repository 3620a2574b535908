/**
 * The table `skillgate list` prints for a person: one row per skill (name,
 * files, size, description cut to the width), then the problems grouped by
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
 *   table (or "No skills found"), then `Errors (N):` and `Warnings (N):`
 *   sections, each problem as `path:line:column: severity reason: detail`.
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

function skillRows(skills: SkillListAnswer["skills"], columns: number): string[] {
  const names = skills.map((skill) => oneLineName(skill.name));
  const nameWidth = Math.min(
    MAX_NAME_COLUMNS,
    Math.max(4, ...names.map((name) => [...name].length)),
  );
  const files = skills.map((skill) => String(skill.files));
  const sizes = skills.map((skill) => formatBytes(skill.bytes));
  const filesWidth = Math.max(5, ...files.map((text) => text.length));
  const sizeWidth = Math.max(4, ...sizes.map((text) => text.length));
  const descriptionWidth = columns - nameWidth - filesWidth - sizeWidth - GAP.length * 3;
  const row = (name: string, file: string, size: string, description: string) =>
    (padEnd(cutToWidth(name, nameWidth), nameWidth) + GAP + file.padStart(filesWidth) + GAP +
      size.padStart(sizeWidth) + GAP + cutToWidth(description, descriptionWidth)).trimEnd();
  return [
    row("NAME", "FILES", "SIZE", "DESCRIPTION"),
    ...skills.map((skill, index) =>
      row(names[index] ?? "", files[index] ?? "", sizes[index] ?? "", oneLine(skill.description))
    ),
  ];
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
