/**
 * Frontmatter validation against the Agent Skills spec, lenient the way the
 * spec asks clients to be: only a missing or unusable `description` keeps a
 * skill out; every other deviation is a warning.
 *
 * @module
 */

import type { Problem } from "./problem.ts";
import { specNameIssue } from "./names.ts";

/** Characters of `description` the spec allows. */
export const MAX_DESCRIPTION_CHARS = 1024;
/** Characters of `compatibility` the spec allows. */
export const MAX_COMPATIBILITY_CHARS = 500;

/** Where the frontmatter came from. */
export interface ValidateOptions {
  /** The skill's directory name, which is its served name. */
  readonly dirName: string;
  /** The lexical path of the SKILL.md, used as each problem's `path`. */
  readonly skillMdPath: string;
  /** 1-based file line of each top-level key, to point findings at it. @default none */
  readonly keyLines?: ReadonlyMap<string, number>;
}

/**
 * Checks parsed frontmatter against the Agent Skills spec.
 *
 * - `description`: required text of 1 to 1024 characters. Missing, empty or
 *   not text is an `error` (`invalid-frontmatter`); longer is a `warning`.
 * - `name`: missing, not text (a number such as `12306` included), or off
 *   the naming rule is a warning
 *   (`invalid-frontmatter`); different from the directory name is a warning
 *   (`name-mismatch`), and the skill is served under its directory name.
 * - `compatibility` (text, 1-500 characters), `metadata` (map of text to
 *   text), `license` and `allowed-tools` (text): a warning when off.
 * - Other keys: no finding.
 *
 * Characters are counted as Unicode code points.
 *
 * @param frontmatter The parsed frontmatter (JSON values).
 * @param options The directory name, SKILL.md path and key lines.
 * @returns The problems, in field order; empty when all is well.
 *
 * Rule source: Agent Skills spec, "Frontmatter" (agentskills.io/specification).
 */
export function validateFrontmatter(
  frontmatter: Readonly<Record<string, unknown>>,
  options: ValidateOptions,
): Problem[] {
  const problems: Problem[] = [];
  const report = (
    key: string,
    severity: Problem["severity"],
    detail: string,
    reason: Problem["reason"] = "invalid-frontmatter",
  ) => {
    const line = options.keyLines?.get(key);
    problems.push({
      path: options.skillMdPath,
      reason,
      severity,
      detail,
      ...(line === undefined ? {} : { line, column: 1 }),
    });
  };
  checkDescription(frontmatter, report);
  checkName(frontmatter, options.dirName, report);
  checkOptionalText(frontmatter, "compatibility", MAX_COMPATIBILITY_CHARS, report);
  checkOptionalText(frontmatter, "license", null, report);
  checkOptionalText(frontmatter, "allowed-tools", null, report);
  checkMetadata(frontmatter, report);
  return problems;
}

type Report = (
  key: string,
  severity: Problem["severity"],
  detail: string,
  reason?: Problem["reason"],
) => void;

function has(frontmatter: Readonly<Record<string, unknown>>, key: string): boolean {
  return Object.hasOwn(frontmatter, key);
}

function chars(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function kind(value: unknown): string {
  if (value === null) return "nothing (null)";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  return `the ${typeof value} "${String(value)}"`;
}

function checkDescription(frontmatter: Readonly<Record<string, unknown>>, report: Report): void {
  const description = frontmatter["description"];
  if (!has(frontmatter, "description")) {
    const empty = Object.keys(frontmatter).length === 0 ? "Frontmatter is empty and " : "";
    report(
      "description",
      "error",
      `${empty}description is missing; the Agent Skills spec requires it. Add 'description:' ` +
        "saying what the skill does and when to use it",
    );
  } else if (typeof description !== "string") {
    report(
      "description",
      "error",
      `description must be text, found ${kind(description)}. Write it as a string`,
    );
  } else if (description.trim().length === 0) {
    report(
      "description",
      "error",
      "description is empty. Say what the skill does and when to use it",
    );
  } else if (chars(description) > MAX_DESCRIPTION_CHARS) {
    report(
      "description",
      "warning",
      `description is ${chars(description)} characters; the Agent Skills spec allows at most ` +
        `${MAX_DESCRIPTION_CHARS}. Shorten it`,
    );
  }
}

function checkName(
  frontmatter: Readonly<Record<string, unknown>>,
  dirName: string,
  report: Report,
): void {
  const name = frontmatter["name"];
  if (!has(frontmatter, "name")) {
    report(
      "name",
      "warning",
      `name is missing; the Agent Skills spec requires it. Add 'name: ${dirName}'`,
    );
    return;
  }
  if (typeof name !== "string") {
    // YAML reads `name: 12306` as a number: the spec's name is text, so say so (the
    // skill is served under its directory name either way).
    report(
      "name",
      "warning",
      `name must be text, found ${kind(name)}. Write 'name: "${dirName}"' (quoted)`,
    );
    return;
  }
  const text = name;
  if (text !== dirName) {
    report(
      "name",
      "warning",
      `name "${text}" differs from the directory name "${dirName}"; the skill is served as ` +
        `"${dirName}". Make them equal`,
      "name-mismatch",
    );
  }
  const issue = specNameIssue(text);
  if (issue !== null) {
    report(
      "name",
      "warning",
      `name "${text}" breaks the Agent Skills naming rule: ${issue}. Use lowercase letters, ` +
        "digits and single '-' (at most 64 characters)",
    );
  }
}

function checkOptionalText(
  frontmatter: Readonly<Record<string, unknown>>,
  key: string,
  maxChars: number | null,
  report: Report,
): void {
  if (!has(frontmatter, key)) return;
  const value = frontmatter[key];
  if (typeof value !== "string") {
    report(key, "warning", `${key} must be text, found ${kind(value)}. Write it as a string`);
  } else if (maxChars !== null && value.trim().length === 0) {
    report(key, "warning", `${key} is empty. Fill it in or remove it`);
  } else if (maxChars !== null && chars(value) > maxChars) {
    report(
      key,
      "warning",
      `${key} is ${chars(value)} characters; the Agent Skills spec allows at most ${maxChars}. ` +
        "Shorten it",
    );
  }
}

function checkMetadata(frontmatter: Readonly<Record<string, unknown>>, report: Report): void {
  if (!has(frontmatter, "metadata")) return;
  const metadata = frontmatter["metadata"];
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    report(
      "metadata",
      "warning",
      `metadata must be a map of text keys to text values, found ${kind(metadata)}`,
    );
    return;
  }
  const offending = Object.entries(metadata).filter(([, value]) => typeof value !== "string")
    .map(([key]) => key);
  if (offending.length > 0) {
    report(
      "metadata",
      "warning",
      `metadata values must be text; "${offending.join('", "')}" ` +
        `${offending.length === 1 ? "is" : "are"} not. Quote ` +
        `${offending.length === 1 ? "it" : "them"} or move nested data out of metadata`,
    );
  }
}
