/**
 * Finding a skill by name for a tool call, with an error that tells the model
 * which names are served.
 *
 * @module
 */

import type { Catalog, Skill } from "../../skills/skill.ts";
import { catalogIndex, closeNames } from "../catalog_index.ts";
import { clientStringIssue, MAX_SUGGESTION_NEEDLE_CHARS } from "../client_strings.ts";
import { toolError, type ToolResult } from "../tool_result.ts";

/** How many served names a "not found" hint suggests at most. */
const MAX_SUGGESTED_NAMES = 10;

/**
 * Looks a skill up by its exact (directory) name.
 *
 * @param catalog The snapshot the request works on.
 * @param name The name the client sent.
 * @returns The skill (one `Map` lookup); an `INVALID_ARGUMENTS` tool error for
 *   a name over MAX_CLIENT_NAME_CHARS (255), before any lookup; or a
 *   `SKILL_NOT_FOUND` tool error whose hint names close matches
 *   (case-insensitive substring, searched only for names of at most 64
 *   characters, stopping at the tenth) or else the first served names.
 */
export function lookUpSkill(catalog: Catalog, name: string): Skill | ToolResult {
  const tooLong = clientStringIssue("name", "The skill name", name);
  if (tooLong !== null) {
    return toolError("INVALID_ARGUMENTS", tooLong, "Call skill_list for the names served");
  }
  const skill = catalog.byName.get(name);
  if (skill !== undefined) return skill;
  const all = catalogIndex(catalog).all;
  const close = closeNames(all, name, {
    max: MAX_SUGGESTED_NAMES,
    maxNeedleChars: MAX_SUGGESTION_NEEDLE_CHARS,
  });
  const suggested = close.length > 0 ? close : all.names.slice(0, MAX_SUGGESTED_NAMES);
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
