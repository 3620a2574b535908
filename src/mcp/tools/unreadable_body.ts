/**
 * The one answer of every tool that reads a skill's instructions
 * (`skill_load`, `skill_browse_detail`) when its SKILL.md cannot be read now:
 * which error, and what the model (or the user) should do next.
 *
 * @module
 */

import { isStaleSkillReread } from "../../refresh/stale_hint.ts";
import type { Skill } from "../../skills/skill.ts";
import type { SkillBody } from "../../skills/skill_body.ts";
import { toolError, type ToolResult } from "../tool_result.ts";

/**
 * The tool error for a SKILL.md that did not read. `SKILL_UNAVAILABLE` when the skill stays listed as it is: it
 * keeps its last good entry (its SKILL.md broke), or no refresh reads it
 * again (`--static`, a remote copy: review s15 hR L5, where "list again" sent
 * the model round in a loop); it is served again as soon as it loads.
 * Otherwise `SKILL_NOT_FOUND`: the skill changed on disk, and listing again
 * shows it as it is now (`relistHint` says how, per tool).
 *
 * @param found The skill looked up.
 * @param read Its body's failed read through the gate (`readSkillBody`).
 * @param asShown How a path in a detail is shown to this client (hosted labels, remote specs).
 * @param relistHint What to do when the skill changed on disk (the tool's way of listing again).
 * @returns The error.
 *
 * Needs no Deno permission (`isStaleSkillReread` only reads state in memory).
 */
export function unreadableBodyError(
  found: Skill,
  read: Extract<SkillBody, { readonly ok: false }>,
  asShown: (text: string) => string,
  relistHint: string,
): ToolResult {
  const fixHint = "Use another skill, or ask the user to fix its SKILL.md: it is served again as " +
    "soon as it loads";
  if (read.isLastGood) return toolError("SKILL_UNAVAILABLE", asShown(read.detail), fixHint);
  const message = `The instructions of skill "${found.name}" cannot be read now: ${
    asShown(read.detail)
  }`;
  return isStaleSkillReread(found)
    ? toolError("SKILL_NOT_FOUND", message, relistHint)
    : toolError("SKILL_UNAVAILABLE", message, fixHint);
}
