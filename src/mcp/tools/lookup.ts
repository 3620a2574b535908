/**
 * Finding a skill by name for a tool call, with an error that tells the model
 * which names are served.
 *
 * @module
 */

import type { Catalog, Skill } from "../../skills/skill.ts";
import { toolError, type ToolResult } from "../tool_result.ts";

/** How many served names a "not found" hint suggests at most. */
const MAX_SUGGESTED_NAMES = 10;

/**
 * Looks a skill up by its exact (directory) name.
 *
 * @param catalog The snapshot the request works on.
 * @param name The name the client sent.
 * @returns The skill, or a `SKILL_NOT_FOUND` tool error whose hint names
 *   close matches (substring, case-insensitive) or else the first served names.
 */
export function lookUpSkill(catalog: Catalog, name: string): Skill | ToolResult {
  const skill = catalog.byName.get(name);
  if (skill !== undefined) return skill;
  const needle = name.toLowerCase();
  const close = catalog.skills.filter((candidate) =>
    candidate.name.toLowerCase().includes(needle) || needle.includes(candidate.name.toLowerCase())
  );
  const suggested = (close.length > 0 ? close : catalog.skills).slice(0, MAX_SUGGESTED_NAMES)
    .map((candidate) => candidate.name);
  const hint = suggested.length === 0
    ? "No skills are served; call skill_list to see the roots and their problems"
    : `Served names include: ${suggested.join(", ")}. Call skill_list to search`;
  return toolError("SKILL_NOT_FOUND", `No skill named "${truncate(name)}" is served`, hint);
}

/**
 * Whether a lookup result is the skill (not an error).
 *
 * @param value What {@linkcode lookUpSkill} returned.
 * @returns True for a skill.
 */
export function isSkill(value: Skill | ToolResult): value is Skill {
  return "realDir" in value;
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
