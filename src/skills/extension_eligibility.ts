/**
 * Which served skills the MCP skills extension (SEP-2640) lists. The
 * extension's rules are stricter than skillgate's: a skill whose directory
 * name is not its spec-valid frontmatter `name`, or that exceeds the
 * extension's per-skill limits, is left out of `skills/list` and `skills/get`
 * and reported as an `extension-excluded` problem. It stays reachable
 * through the tools, prompts and resources.
 *
 * @module
 */

import { isSpecName } from "./names.ts";
import type { Problem } from "./problem.ts";
import type { Skill } from "./skill.ts";

/** Files per skill the extension allows at most, SKILL.md included (SEP-2640, "Limits"). */
export const EXTENSION_MAX_FILES = 512;
/** Bytes per skill the extension allows at most: 16 MiB (SEP-2640, "Limits"). */
export const EXTENSION_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Says why a skill is left out of the skills extension's listing.
 *
 * @param skill A served skill.
 * @returns A sentence-case reason without a final period, or null when the
 *   extension lists the skill.
 *
 * Rule source: SEP-2640 final text, "Resource Mapping" (the last path segment
 * MUST equal the frontmatter name and satisfy the naming rules; the file is
 * `SKILL.md`), "Limits"
 * (512 files, 16 MiB; larger skills SHOULD NOT be served), "Resources" (the
 * manifest MUST be complete); a kept last-good version's SKILL.md no longer
 * matches its frontmatter (SEP-2640, "Frontmatter").
 */
export function extensionExclusion(skill: Skill): string | null {
  const name = skill.frontmatter["name"];
  if (typeof name !== "string" || name !== skill.name || !isSpecName(name)) {
    return `its folder name "${skill.name}" is not its spec-valid frontmatter name`;
  }
  if (skill.skillMdFile !== "SKILL.md") {
    return `its instructions file is named "${skill.skillMdFile}", not "SKILL.md"`;
  }
  if (Object.hasOwn(skill.frontmatter, "__proto__")) {
    return 'its frontmatter has a "__proto__" key, which JSON readers cannot carry faithfully';
  }
  if (skill.filesTruncated) {
    return "its file listing stopped at a cap, so its manifest is incomplete";
  }
  if (skill.files.length > EXTENSION_MAX_FILES) {
    return `it has ${skill.files.length} files and the extension allows ${EXTENSION_MAX_FILES}`;
  }
  if (skill.bytes > EXTENSION_MAX_BYTES) {
    return `it holds ${skill.bytes} bytes and the extension allows ${EXTENSION_MAX_BYTES}`;
  }
  if (skill.isLastGood === true) {
    return "its SKILL.md no longer parses; the tools serve its last good version until it is fixed";
  }
  return null;
}

/**
 * The `extension-excluded` warnings for a set of skills, in their order.
 *
 * @param skills The served skills.
 * @returns One warning per skill the extension leaves out, at the skill's folder.
 *
 * Rule source: see {@linkcode extensionExclusion}.
 */
export function extensionProblems(skills: readonly Skill[]): Problem[] {
  const problems: Problem[] = [];
  for (const skill of skills) {
    const why = extensionExclusion(skill);
    if (why === null) continue;
    problems.push(Object.freeze({
      path: skill.dir,
      reason: "extension-excluded",
      severity: "warning",
      detail: `Skill "${skill.name}" is not listed by the MCP skills extension (skills/list, ` +
        `skills/get) because ${why}; the tools still serve it`,
    }));
  }
  return problems;
}
