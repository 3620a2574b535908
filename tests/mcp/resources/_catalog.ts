/**
 * Test helper: in-memory catalogs for the resources and prompts families
 * (no files behind them unless `realDir` points at a tree).
 *
 * @module
 */

import type { Catalog, Skill, SkillFile } from "../../../src/skills/skill.ts";

/** What a test skill needs; the rest is filled in. */
export interface TestSkill {
  readonly name: string;
  readonly files?: readonly string[];
  readonly description?: string;
  readonly frontmatter?: Record<string, unknown>;
  readonly realDir?: string;
}

/**
 * Builds a frozen catalog the way discovery does: skills sorted by name,
 * files sorted by path, SKILL.md always present.
 *
 * @param skills The skills.
 * @returns The catalog.
 */
export function testCatalog(skills: readonly TestSkill[]): Catalog {
  const built: Skill[] = skills.map((spec) => {
    const paths = [...new Set(["SKILL.md", ...(spec.files ?? [])])].sort(byCodeUnits);
    const files: SkillFile[] = paths.map((path, index) => ({
      path,
      size: 10 + index,
      mtimeMs: Date.UTC(2025, 0, 1),
    }));
    const description = spec.description ?? `Does ${spec.name} things`;
    return {
      name: spec.name,
      dir: spec.realDir ?? `/nowhere/${spec.name}`,
      realDir: spec.realDir ?? `/nowhere/${spec.name}`,
      root: "/nowhere",
      skillMdFile: "SKILL.md",
      frontmatter: { name: spec.name, description, ...spec.frontmatter },
      description,
      body: "Body\n",
      bodyTruncated: false,
      skillMdBytes: 10,
      files,
      bytes: files.reduce((sum, file) => sum + file.size, 0),
      filesTruncated: false,
    };
  }).sort((a, b) => byCodeUnits(a.name, b.name));
  return {
    roots: [{ path: "/nowhere", from: "argument" }],
    skills: built,
    byName: new Map(built.map((skill) => [skill.name, skill])),
    problems: [],
  };
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
