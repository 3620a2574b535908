/**
 * Loading one discovered skill: bounded SKILL.md read, frontmatter parse,
 * validation and file listing, into a frozen {@linkcode Skill}.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { checkSkillScripts } from "../scripts/skill_scripts.ts";
import { deepFreeze } from "./_freeze.ts";
import { listSkillFiles } from "./_list_files.ts";
import { problem } from "./_problems.ts";
import { readSkillMd } from "./_read_skill_md.ts";
import type { SkillCandidate } from "./discover.ts";
import { parseFrontmatter, splitFrontmatter } from "./frontmatter.ts";
import type { IndexCache, ParsedSkillMd } from "./index_cache.ts";
import type { Problem } from "./problem.ts";
import type { Skill, SkillFile } from "./skill.ts";
import { validateFrontmatter } from "./validate.ts";

/** Skill folders loaded by this isolate so far (see {@linkcode skillLoadsSoFar}). */
let loads = 0;

/**
 * How many skill folders this isolate has loaded from disk (SKILL.md read
 * and files listed) since it started: tests count that the trusted part and
 * the worker together load each skill once at start-up.
 *
 * @returns The count.
 */
export function skillLoadsSoFar(): number {
  return loads;
}

/** The outcome of loading one candidate: the skill when served, and its problems. */
export interface LoadedSkill {
  readonly skill: Skill | null;
  readonly problems: readonly Problem[];
}

/**
 * Loads one skill folder. Errors (unreadable SKILL.md, malformed or invalid
 * frontmatter) keep it out; warnings do not.
 *
 * @param candidate The folder found by discovery.
 * @param caps The caps (`maxSkillMdBytes`, `maxFilesPerSkill`, `maxFoldersPerSkill`).
 * @param cache The index cache: SKILL.md is always read through the gate,
 *   but a version parsed before (same device, inode, size, mtime, ctime) is
 *   not parsed and validated again. @default none
 * @returns The frozen skill (or null) and its problems in the order found.
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function loadSkill(
  candidate: SkillCandidate,
  caps: Caps,
  cache?: IndexCache,
): Promise<LoadedSkill> {
  loads++;
  const read = await readSkillMd(candidate, caps.maxSkillMdBytes);
  if (!read.ok) return { skill: null, problems: [read.problem] };
  const problems: Problem[] = [];
  if (candidate.skillMdFile !== "SKILL.md") {
    problems.push(problem(
      read.path,
      "skill-md-case",
      "warning",
      `"${candidate.skillMdFile}" should be named "SKILL.md"; it is served anyway. Rename the file`,
    ));
  }
  if (read.truncated) {
    problems.push(problem(
      read.path,
      "skill-md-truncated",
      "warning",
      `"${read.path}" is ${read.size} bytes; only the first ${caps.maxSkillMdBytes} are served ` +
        "and the body is cut. Move detail into reference files",
    ));
  }
  const version = {
    dev: read.dev,
    ino: read.ino,
    size: read.size,
    mtimeMs: read.mtimeMs,
    ctimeMs: read.ctimeMs,
  };
  // Everything the parse depends on besides the bytes, NUL-separated (no path holds NUL).
  const cacheKey = `${candidate.realDir}\0${read.path}\0${candidate.baseName}\0${read.truncated}`;
  let known: ParsedSkillMd | null = cache?.lookup(cacheKey, version) ?? null;
  let body = "";
  if (known !== null) {
    const split = splitFrontmatter(read.text);
    if (!split.ok) known = null; // cannot be, for a version that parsed; parse it afresh
    body = split.ok ? split.body : "";
  }
  if (known === null) {
    const parsed = parseFrontmatter(read.text);
    if (!parsed.ok) {
      const place = parsed.line === undefined ? {} : {
        line: parsed.line,
        ...(parsed.column === undefined ? {} : { column: parsed.column }),
      };
      problems.push({
        ...problem(read.path, "malformed-frontmatter", "error", parsed.detail),
        ...place,
      });
      return { skill: null, problems };
    }
    const findings = validateFrontmatter(parsed.frontmatter, {
      dirName: candidate.baseName,
      skillMdPath: read.path,
      keyLines: parsed.keyLines,
    });
    if (findings.some((p) => p.severity === "error")) {
      problems.push(...findings);
      return { skill: null, problems };
    }
    known = { frontmatter: parsed.frontmatter, keyLines: [...parsed.keyLines], findings };
    cache?.remember(cacheKey, version, known);
    body = parsed.body;
  }
  problems.push(...known.findings);
  const keyLines = new Map(known.keyLines);
  const skillMd: SkillFile = {
    path: candidate.skillMdFile,
    size: read.size,
    mtimeMs: read.mtimeMs,
    ctimeMs: read.ctimeMs,
    dev: read.dev,
    ino: read.ino,
  };
  const listing = listSkillFiles(candidate, skillMd, caps);
  problems.push(...listing.problems);
  const frontmatter = known.frontmatter as Record<string, unknown>;
  const mcpHostLine = keyLines.get("mcp-host");
  const declared = await checkSkillScripts(frontmatter, {
    dir: candidate.dir,
    realDir: candidate.realDir,
    skillMdPath: read.path,
    ...(mcpHostLine === undefined ? {} : { line: mcpHostLine }),
  });
  problems.push(...declared.problems);
  const whenToUse = [frontmatter["when-to-use"], frontmatter["when_to_use"]]
    .find((value): value is string => typeof value === "string");
  const skill: Skill = {
    name: candidate.name,
    ...(candidate.prefix === undefined ? {} : {
      baseName: candidate.baseName,
      prefix: candidate.prefix,
    }),
    ...(candidate.source === undefined ? {} : { source: candidate.source }),
    dir: candidate.dir,
    realDir: candidate.realDir,
    root: candidate.root,
    skillMdFile: candidate.skillMdFile,
    frontmatter,
    description: frontmatter["description"] as string,
    ...(whenToUse === undefined ? {} : { whenToUse }),
    body,
    bodyTruncated: read.truncated,
    skillMdBytes: read.size,
    files: listing.files,
    bytes: listing.bytes,
    filesTruncated: listing.truncated,
    scripts: declared.scripts,
  };
  // Frozen through and through: the frontmatter, the file list and each file.
  return { skill: deepFreeze(skill), problems };
}
