/**
 * Test and benchmark helper: catalogs built in memory (no files), from skill
 * texts or from the benchmark's skill generator, so the search can be tested
 * and measured on 10,000 skills without writing 30,000 files.
 *
 * @module
 */

import { generatedSkill } from "../../bench/support/skill_generator.ts";
import { freezeCatalog } from "../../src/skills/_freeze.ts";
import type { Catalog, Skill } from "../../src/skills/skill.ts";
import { seededRandom } from "./seeded_random.ts";

/** The searchable parts of a skill. */
export interface SkillText {
  readonly name: string;
  readonly description: string;
  readonly body?: string;
  readonly whenToUse?: string;
  /** Extra frontmatter (e.g. `{"disable-model-invocation": true}`). */
  readonly frontmatter?: Record<string, unknown>;
}

/**
 * A skill as discovery would serve it from `/skills/<name>/SKILL.md`.
 *
 * @param text Name, description, body (default `""`), when-to-use, frontmatter.
 * @returns The skill (not frozen; {@linkcode memoryCatalog} freezes it).
 */
export function memorySkill(text: SkillText): Skill {
  const body = text.body ?? "";
  return {
    name: text.name,
    dir: `/skills/${text.name}`,
    realDir: `/skills/${text.name}`,
    root: "/skills",
    skillMdFile: "SKILL.md",
    frontmatter: { name: text.name, description: text.description, ...text.frontmatter },
    description: text.description,
    ...(text.whenToUse === undefined ? {} : { whenToUse: text.whenToUse }),
    body,
    bodyTruncated: false,
    skillMdBytes: body.length,
    files: [{ path: "SKILL.md", size: body.length, mtimeMs: null }],
    bytes: body.length,
    filesTruncated: false,
  };
}

/**
 * A frozen catalog of these skills, sorted by name, under one root `/skills`.
 *
 * @param skills Skills with distinct names.
 * @returns The snapshot.
 */
export function memoryCatalog(skills: readonly Skill[]): Catalog {
  const sorted = [...skills].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return freezeCatalog([{ path: "/skills", from: "argument" }], sorted, []);
}

/**
 * The first `count` skills `bench/support/skill_generator.ts` writes for a
 * seed, in memory.
 *
 * @param count Skills, 1 to 100,000.
 * @param seed The generator's seed (default 1, as `make bench`).
 * @returns The skills, in generation order.
 */
export function generatedMemorySkills(count: number, seed = 1): Skill[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    const generated = generatedSkill(index, random);
    return memorySkill({
      name: generated.name,
      description: generated.description,
      body: generated.body,
    });
  });
}
