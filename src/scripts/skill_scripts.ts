/**
 * A skill's scripts as discovery sees them: the declaration parsed from its
 * frontmatter, and each declared script checked to exist as a regular file
 * inside the skill (through the file gate). Runs inside skill loading, so the
 * catalog snapshot carries the result and every problem.
 *
 * @module
 */

import { join } from "node:path";
import { PathRefusedError, resolveSkillFile } from "../files/path_gate.ts";
import type { Problem } from "../skills/problem.ts";
import { type Declaration, type DeclaredScript, parseDeclaration } from "./declaration.ts";
import { isExecutableFile } from "./runner/executable.ts";

/** What a skill declares, after refusals, plus each usable script's real path at discovery. */
export interface SkillScripts {
  readonly declaration: Declaration;
  /** Declared scripts whose file exists inside the skill, in declared order. */
  readonly scripts: readonly DeclaredScript[];
  /**
   * Real path of each usable script at discovery, keyed by its declared path.
   * Host paths: never shown to a client. Used to put `exec` scripts on the
   * worker's run permission at start-up; every run resolves the path again.
   */
  readonly realPaths: Readonly<Record<string, string>>;
  /**
   * Why each declared script that is not usable cannot run, keyed by its
   * declared path (client-safe: names only the script). Absent in catalogs
   * built before this field existed.
   */
  readonly unusable?: Readonly<Record<string, string>>;
}

/** Where a skill lives, for {@linkcode checkSkillScripts}. */
export interface SkillPlace {
  /** Lexical path of the skill folder (problem paths are built from it). */
  readonly dir: string;
  /** Real path of the skill folder. */
  readonly realDir: string;
  /** Lexical path of its SKILL.md (declaration problems point at it). */
  readonly skillMdPath: string;
  /** 1-based line of the `mcp-host` key, when known. */
  readonly line?: number;
}

/**
 * Parses a skill's `mcp-host` block and checks each declared script through
 * the file gate. A script that does not exist or is not a regular file is a
 * `declared-script-missing` error, and so is an `interpreter: exec` script
 * without an execute bit (review n7: it failed only at run time, after a
 * green `validate`); one whose real path leaves the skill is a
 * `symlink-escape` error; each costs the skill that script only, and its
 * reason is kept for `skill_list`'s `unavailableScripts`.
 *
 * @param frontmatter The parsed frontmatter.
 * @param place The skill folder's lexical and real paths and its SKILL.md path.
 * @returns The scripts (null when there is no `mcp-host` key) and the
 *   problems (`declaration`, `declared-script-missing`, `symlink-escape`).
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: issue 4, "Declaration"; the path rule in anchors.md.
 */
export async function checkSkillScripts(
  frontmatter: Readonly<Record<string, unknown>>,
  place: SkillPlace,
): Promise<{ scripts: SkillScripts | null; problems: Problem[] }> {
  const parsed = parseDeclaration(frontmatter);
  const problems: Problem[] = parsed.findings.map((finding) => ({
    path: place.skillMdPath,
    reason: "declaration",
    severity: finding.severity,
    detail: finding.detail,
    ...(place.line === undefined ? {} : { line: place.line, column: 1 }),
  }));
  if (parsed.declaration === null) return { scripts: null, problems };
  const usable: DeclaredScript[] = [];
  const realPaths: Record<string, string> = {};
  const unusable: Record<string, string> = {};
  for (const declared of parsed.declaration.run) {
    try {
      const file = await resolveSkillFile(place.realDir, declared.script);
      if (declared.interpreter === "exec" && !isExecutableFile(file.realPath)) {
        const why = `Declared script "${declared.script}" runs itself (interpreter: exec) but is ` +
          "not executable; it cannot run. Mark it executable (chmod +x) with a #! first line, " +
          "or name its interpreter (sh, bash, python3, node...)";
        unusable[declared.script] = why;
        problems.push({
          path: join(place.dir, declared.script),
          reason: "declared-script-missing",
          severity: "error",
          detail: why,
        });
        continue;
      }
      usable.push(declared);
      realPaths[declared.script] = file.realPath;
    } catch (error) {
      if (!(error instanceof PathRefusedError)) throw error;
      const escaped = error.code === "outside-skill";
      const detail = escaped
        ? `Declared script "${declared.script}" leads outside the skill; it cannot run`
        : `Declared script "${declared.script}" is not a usable file (${error.message}); ` +
          "it cannot run";
      unusable[declared.script] = detail;
      problems.push({
        path: join(place.dir, declared.script),
        reason: escaped ? "symlink-escape" : "declared-script-missing",
        severity: "error",
        detail,
      });
    }
  }
  return {
    scripts: Object.freeze({
      declaration: parsed.declaration,
      scripts: Object.freeze(usable),
      realPaths: Object.freeze(realPaths),
      unusable: Object.freeze(unusable),
    }),
    problems,
  };
}
