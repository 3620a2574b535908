/**
 * `skillgate validate PATH...`: checks skill folders against the Agent
 * Skills spec with the very discovery, frontmatter parser and validator the
 * server uses, prints every finding with its file, line and column, and
 * exits 1 when any is an error, so authors can run it in CI. With `--strict`
 * every Agent Skills spec finding the server tolerates (served with a
 * warning) is an error too (review r16, N3): other hosts that follow the
 * spec refuse such a skill.
 *
 * Like `list`, it runs in the trusted part's process: there is no client,
 * only the owner's own folders, and nothing is served or run.
 *
 * @module
 */

import { dirname } from "node:path";
import type { Caps } from "../caps.ts";
import type { Config } from "../config/config.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Problem } from "../skills/problem.ts";
import type { Root } from "../skills/skill.ts";
import { type CommandIo, EXIT_USAGE } from "./command_io.ts";
import { problemLine } from "./problem_line.ts";
import { usableRoots } from "./usable_roots.ts";

/** Exit code when at least one finding is an error. */
export const EXIT_INVALID = 1;

/**
 * The findings `--strict` counts as errors: every rule of the Agent Skills
 * spec the server only warns about (`invalid-frontmatter`: name pattern and
 * length, description length, compatibility, metadata, license;
 * `name-mismatch`: name vs folder; `skill-md-case`: the file is not named
 * exactly `SKILL.md`) and `extension-excluded` (left out of the SEP-2640
 * listing). Source: agentskills.io/specification; review r16, N3.
 */
export const STRICT_REASONS: ReadonlySet<Problem["reason"]> = new Set<Problem["reason"]>([
  "invalid-frontmatter",
  "name-mismatch",
  "skill-md-case",
  "extension-excluded",
]);

/** What validating one or more paths found. */
export interface ValidationReport {
  /** Skills that would be served (warnings allowed), summed over the paths. */
  readonly usableSkills: number;
  /** Every finding, per path in the order given, each path's in discovery order. */
  readonly problems: readonly Problem[];
  readonly errorCount: number;
  readonly warningCount: number;
}

/**
 * Runs `skillgate validate`: prints one line per finding
 * (`path:line:column: severity reason: detail`, paths relative to the working
 * directory when under it) and a summary line. Requires `--allow-read` on
 * the paths and `--allow-env` for `LOG_TOKENS` and `LOG_STREAM` (`npm:yaml`).
 *
 * @param config The frozen configuration (`targets`, `caps`, `options.strict`:
 *   {@linkcode STRICT_REASONS} count as errors, default false).
 * @param io Outputs and working directory.
 * @returns 0 when no finding is an error (warnings allowed), 1 when any is
 *   (no skill found at a path included; under `--strict` any spec finding
 *   or `extension-excluded` included), 2 when a path is missing,
 *   unreadable or not a folder.
 *
 * Rule source: Agent Skills spec (agentskills.io/specification), through
 * `src/skills/validate.ts` and `src/skills/frontmatter.ts`.
 */
export async function runValidateCommand(config: Config, io: CommandIo): Promise<number> {
  const roots = [...new Set(config.targets.map(skillFolderOf))].map((path): Root => ({
    path,
    from: "argument",
  }));
  if ((await usableRoots(roots, io)) === null) return EXIT_USAGE;
  const report = await validatePaths(roots, config.caps, { strict: config.options.strict });
  const lines = report.problems.map((problem) =>
    problemLine(problem, { cwd: io.cwd, isFrontmatterLocated: true })
  );
  lines.push(summaryLine(report, roots.length));
  await io.writeOut(lines.map((line) => `${line}\n`).join(""));
  return report.errorCount > 0 ? EXIT_INVALID : 0;
}

/**
 * Validates each path on its own (one catalog per path, so two paths that
 * hold the same skill are not reported as a duplicate name; inside one path
 * a duplicate name is an error, as when serving it; two different folders
 * of one name across paths are a `duplicate-name` warning, since served as
 * roots of one server both would be refused). A path may be a skill
 * folder or a folder of skills. Finding no skill at a path (`no-skill-md`,
 * a warning when serving, so an empty root never stops a server) is an
 * error here: validating nothing must not pass in CI. Requires
 * `--allow-read` on the paths.
 *
 * @param roots The paths, as roots.
 * @param caps The caps discovery enforces (the served ones).
 * @param options `strict`: every finding of {@linkcode STRICT_REASONS} is
 *   an error. @default { strict: false }
 * @returns The usable skill count and every finding with its counts.
 */
export async function validatePaths(
  roots: readonly Root[],
  caps: Caps,
  options: { readonly strict: boolean } = { strict: false },
): Promise<ValidationReport> {
  const problems: Problem[] = [];
  let usableSkills = 0;
  /** Each usable skill name: the first folder (real path) and path that gave it. */
  const seen = new Map<string, { realDir: string; dir: string }>();
  for (const root of roots) {
    const catalog = await buildCatalog([root], caps);
    usableSkills += catalog.skills.length;
    problems.push(
      ...catalog.problems.map((problem) => asValidationFinding(problem, options.strict)),
    );
    for (const skill of catalog.skills) {
      const first = seen.get(skill.name);
      if (first === undefined) seen.set(skill.name, { realDir: skill.realDir, dir: skill.dir });
      else if (first.realDir !== skill.realDir) {
        // Each path is valid alone; served together they would clash (newcomer n9, F4).
        problems.push({
          path: `${skill.dir}/SKILL.md`,
          reason: "duplicate-name",
          severity: "warning",
          detail: `"${skill.name}" is also the name of ${first.dir}: each path is valid on its ` +
            "own, but served as roots of one server both would be refused; rename one (or " +
            "give a root a prefix with --root-prefix)",
        });
      }
    }
  }
  const errorCount = problems.filter((problem) => problem.severity === "error").length;
  return { usableSkills, problems, errorCount, warningCount: problems.length - errorCount };
}

/**
 * The folder to validate for a path: a path naming a `SKILL.md` file (in any
 * letter case) stands for the folder holding it.
 *
 * @param path An absolute path.
 * @returns The path, or its parent when it names a SKILL.md.
 */
export function skillFolderOf(path: string): string {
  return /(^|\/)skill\.md$/i.test(path) ? dirname(path) : path;
}

/**
 * A finding as `validate` judges it: no skill at a path is an error; under
 * `--strict` so is every finding of {@linkcode STRICT_REASONS}.
 */
function asValidationFinding(problem: Problem, isStrict: boolean): Problem {
  if (isStrict && STRICT_REASONS.has(problem.reason) && problem.severity !== "error") {
    return { ...problem, severity: "error", detail: `${problem.detail} (an error under --strict)` };
  }
  if (problem.reason !== "no-skill-md") return problem;
  return {
    ...problem,
    severity: "error",
    detail: `No skill found here, so nothing was validated. ${problem.detail}. Point validate ` +
      "at a skill folder (one holding SKILL.md) or a folder of skills",
  };
}

function summaryLine(report: ValidationReport, pathCount: number): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const verdict = report.errorCount > 0 ? "FAILED" : "OK";
  return `${verdict}: ${plural(pathCount, "path")} checked, ` +
    `${plural(report.usableSkills, "usable skill")}, ${plural(report.errorCount, "error")}, ` +
    `${plural(report.warningCount, "warning")}`;
}
