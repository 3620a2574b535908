/**
 * Which served skills the MCP skills extension (SEP-2640) lists. The
 * extension's clients check rules skillgate only warns about: a skill that
 * breaks one (its frontmatter name, description, compatibility or metadata
 * off the Agent Skills spec, a folder that is not its name, too many files or
 * bytes) is left out of `skills/list` and `skills/get` and reported as an
 * `extension-excluded` warning naming the rule. It stays reachable through
 * the tools, prompts and resources, with the validation warning it already
 * has.
 *
 * One rule table ({@linkcode EXTENSION_RULES}) decides it, in order; the
 * first rule a skill breaks is the one reported.
 *
 * @module
 */

import { isSpecName } from "./names.ts";
import type { Problem } from "./problem.ts";
import type { Skill } from "./skill.ts";
import { MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS } from "./validate.ts";

/** Files per skill the extension allows at most, SKILL.md included (SEP-2640, "Limits"). */
export const EXTENSION_MAX_FILES = 512;
/** Bytes per skill the extension allows at most: 16 MiB (SEP-2640, "Limits"). */
export const EXTENSION_MAX_BYTES = 16 * 1024 * 1024;

/** One rule a skill must keep to be listed by the extension. */
export interface ExtensionRule {
  /** Stable rule id, named in the `extension-excluded` problem. */
  readonly id: string;
  /** Where the rule comes from. */
  readonly source: string;
  /**
   * Says how the skill breaks the rule.
   *
   * @param skill A served skill.
   * @returns A reason in sentence case without a final period, or null when kept.
   */
  readonly check: (skill: Skill) => string | null;
}

/** Why a skill is left out: the rule it breaks and how. */
export interface ExtensionExclusion {
  readonly rule: string;
  readonly source: string;
  readonly why: string;
}

/** Unicode code points, as the Agent Skills spec and SEP-2640 clients count characters. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a map" : `a ${typeof value}`;
}

/**
 * Every rule, in the order they are checked.
 *
 * Rule sources: SEP-2640 final text, "Resource Mapping" (the last path
 * segment MUST equal the frontmatter name and satisfy the naming rules; the
 * file is `SKILL.md`), "Frontmatter" (the Agent Skills fields as the spec
 * defines them; a JSON-faithful copy), "Limits" (512 files, 16 MiB; larger
 * skills SHOULD NOT be served), "Resources" (the manifest MUST be complete);
 * Agent Skills spec, "Frontmatter" (name 1-64 of a-z, 0-9 and single '-';
 * description 1-1024 characters; compatibility 1-500 characters; metadata a
 * map of string keys to string values). The same checks the MCP Inspector's
 * `--verify` (2.12.0) applies to `skills/list`.
 */
export const EXTENSION_RULES: readonly ExtensionRule[] = Object.freeze([
  {
    id: "name",
    source: "Agent Skills spec, name",
    check: (skill) => {
      const name = skill.frontmatter["name"];
      if (name === undefined) return "its frontmatter has no name";
      if (typeof name !== "string") {
        return `its frontmatter name is ${describeValue(name)}, not text`;
      }
      if (!isSpecName(name)) {
        return `its frontmatter name "${name.slice(0, 80)}" breaks the naming rule (1-64 ` +
          "lowercase letters, digits and single '-')";
      }
      return null;
    },
  },
  {
    id: "name-matches-folder",
    source: "SEP-2640, Resource Mapping",
    check: (skill) => {
      const name = skill.frontmatter["name"];
      const folder = skill.baseName ?? skill.name;
      return name === folder
        ? null
        : `its folder name "${folder}" is not its frontmatter name "${String(name)}"`;
    },
  },
  {
    id: "skill-md-file",
    source: "SEP-2640, Resource Mapping",
    check: (skill) =>
      skill.skillMdFile === "SKILL.md"
        ? null
        : `its instructions file is named "${skill.skillMdFile}", not "SKILL.md"`,
  },
  {
    id: "json-frontmatter",
    source: "SEP-2640, Frontmatter",
    check: (skill) =>
      Object.hasOwn(skill.frontmatter, "__proto__")
        ? 'its frontmatter has a "__proto__" key, which JSON readers cannot carry faithfully'
        : null,
  },
  {
    id: "description",
    source: "Agent Skills spec, description",
    check: (skill) => {
      const description = skill.frontmatter["description"];
      if (typeof description !== "string") {
        return `its description is ${describeValue(description)}, not text`;
      }
      if (description.trim().length === 0) return "its description is blank";
      const chars = codePoints(description);
      return chars > MAX_DESCRIPTION_CHARS
        ? `its description is ${chars} characters and the extension's clients accept 1-` +
          `${MAX_DESCRIPTION_CHARS}`
        : null;
    },
  },
  {
    id: "compatibility",
    source: "Agent Skills spec, compatibility",
    check: (skill) => {
      if (!Object.hasOwn(skill.frontmatter, "compatibility")) return null;
      const compatibility = skill.frontmatter["compatibility"];
      if (typeof compatibility !== "string") {
        return `its compatibility is ${describeValue(compatibility)}, not text`;
      }
      if (compatibility.trim().length === 0) return "its compatibility is blank";
      const chars = codePoints(compatibility);
      return chars > MAX_COMPATIBILITY_CHARS
        ? `its compatibility is ${chars} characters and the extension's clients accept 1-` +
          `${MAX_COMPATIBILITY_CHARS}`
        : null;
    },
  },
  {
    id: "metadata",
    source: "Agent Skills spec, metadata",
    check: (skill) => {
      if (!Object.hasOwn(skill.frontmatter, "metadata")) return null;
      const metadata = skill.frontmatter["metadata"];
      if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
        return `its metadata is ${describeValue(metadata)}, not a map of text to text`;
      }
      const offending = Object.entries(metadata).find(([, value]) => typeof value !== "string");
      return offending === undefined
        ? null
        : `its metadata value "${offending[0].slice(0, 80)}" is ${
          describeValue(offending[1])
        }, not text`;
    },
  },
  {
    id: "complete-manifest",
    source: "SEP-2640, Resources",
    check: (skill) =>
      skill.filesTruncated
        ? "its file listing stopped at a cap, so its manifest is incomplete"
        : null,
  },
  {
    id: "max-files",
    source: "SEP-2640, Limits",
    check: (skill) =>
      skill.files.length > EXTENSION_MAX_FILES
        ? `it has ${skill.files.length} files and the extension allows ${EXTENSION_MAX_FILES}`
        : null,
  },
  {
    id: "max-bytes",
    source: "SEP-2640, Limits",
    check: (skill) =>
      skill.bytes > EXTENSION_MAX_BYTES
        ? `it holds ${skill.bytes} bytes and the extension allows ${EXTENSION_MAX_BYTES}`
        : null,
  },
  {
    id: "current-skill-md",
    source: "SEP-2640, Frontmatter",
    check: (skill) =>
      skill.isLastGood === true
        ? "its SKILL.md no longer parses; no door serves it until it is fixed (the catalog keeps " +
          "its last good entry)"
        : null,
  },
]);

/**
 * The first extension rule a skill breaks.
 *
 * @param skill A served skill.
 * @returns The rule and how it is broken, or null when the extension lists the skill.
 *
 * Rule source: see {@linkcode EXTENSION_RULES}.
 */
export function extensionRuleBroken(skill: Skill): ExtensionExclusion | null {
  for (const rule of EXTENSION_RULES) {
    const why = rule.check(skill);
    if (why !== null) return { rule: rule.id, source: rule.source, why };
  }
  return null;
}

/**
 * Says why a skill is left out of the skills extension's listing.
 *
 * @param skill A served skill.
 * @returns A sentence-case reason without a final period that names the
 *   rule, or null when the extension lists the skill.
 *
 * Rule source: see {@linkcode EXTENSION_RULES}.
 */
export function extensionExclusion(skill: Skill): string | null {
  const broken = extensionRuleBroken(skill);
  return broken === null ? null : `${broken.why} (rule "${broken.rule}": ${broken.source})`;
}

/**
 * The `extension-excluded` warnings for a set of skills, in their order.
 *
 * @param skills The served skills.
 * @returns One warning per skill the extension leaves out, at the skill's folder.
 *
 * Rule source: see {@linkcode EXTENSION_RULES}.
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
