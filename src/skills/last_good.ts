/**
 * What every door serves of a skill live refresh keeps at its last good
 * version (`Skill.isLastGood`: its SKILL.md was read but no longer parses or
 * validates). The catalog keeps no SKILL.md bodies (issue 13, lazy bodies),
 * so the last good bytes are gone from disk and from memory; the file there
 * now is the broken one. So the skill keeps its last good catalog entry
 * (name, description, files) and no door serves its current SKILL.md
 * (`skill_load`, `skill_file`, `resources/read`, `prompts/get`, the skills
 * view, search snippets; `skills/get` leaves it out as `current-skill-md`):
 * each answers this one refusal until SKILL.md loads again. A model can tell
 * that state apart; it never gets the old description with the new text.
 *
 * A SKILL.md that cannot be read at all any more (it leads outside the skill,
 * is not a regular file, is gone or not UTF-8) is not kept at all: the
 * rebuild drops the skill from every door (`src/skills/rebuild_catalog.ts`).
 *
 * @module
 */

import type { Skill } from "./skill.ts";

/**
 * Why a door must not serve `path` of `skill` now, or null when it may.
 *
 * @param skill The skill from the current snapshot.
 * @param path The relative path asked for, as listed (`SKILL.md`).
 * @returns A client-safe sentence (names only the skill and its file) when
 *   `skill` is kept at its last good version and `path` is its SKILL.md, else
 *   null.
 *
 * Rule source: README, "Live refresh" (review n7, 05:12: every door agrees).
 */
export function lastGoodRefusal(skill: Skill, path: string): string | null {
  if (skill.isLastGood !== true || path !== skill.skillMdFile) return null;
  return `The ${skill.skillMdFile} of skill "${skill.name}" no longer loads (skill_list's ` +
    "problems say why), so its instructions are not served until it is fixed; the catalog " +
    "keeps its last good entry meanwhile";
}
