/**
 * Which skills the prompts family offers, and under which prompt names: one
 * prompt per user-invocable skill, named after it, plus the generic `skill`
 * prompt that takes a skill's name. The generic prompt owns the name `skill`;
 * a skill named `skill` is reached through it (`skill` with `name: "skill"`).
 *
 * @module
 */

import type { Catalog, Skill } from "../../skills/skill.ts";
import type { Prompt } from "../sdk.ts";

/** The name of the generic prompt (and of its required argument `name`). */
export const GENERIC_PROMPT_NAME = "skill";
/** The generic prompt's argument that names the skill. */
export const GENERIC_PROMPT_ARGUMENT = "name";

/**
 * Whether a skill may be invoked by the user as a prompt: not when its
 * frontmatter says `user-invocable: false` (a YAML boolean; other values,
 * including the string "false", leave it invocable), nor when the owner's
 * override says `userInvocable: false`.
 *
 * @param skill A served skill.
 * @returns False only for `user-invocable: false` or the override.
 *
 * Source: the feature-rich anchor (`user-invocable: false` hides a skill's
 * prompt); Claude Code skill frontmatter; issue 19 (overrides).
 */
export function isUserInvocable(skill: Skill): boolean {
  return skill.frontmatter["user-invocable"] !== false && skill.override?.userInvocable !== false;
}

/**
 * Whether a skill has a prompt of its own (named after it).
 *
 * @param skill A served skill.
 * @returns True when it is user-invocable and its name is not the generic
 *   prompt's name.
 */
export function hasOwnPrompt(skill: Skill): boolean {
  return isUserInvocable(skill) && skill.name !== GENERIC_PROMPT_NAME;
}

/**
 * The generic prompt's `prompts/list` entry.
 *
 * @param catalog The snapshot the request works on; when it serves a
 *   user-invocable skill named `skill`, the description says how to reach it.
 * @returns The prompt with its one required argument `name`.
 */
export function genericPrompt(catalog: Catalog): Prompt {
  const named = catalog.byName.get(GENERIC_PROMPT_NAME);
  const collision = named !== undefined && isUserInvocable(named)
    ? ` The skill named "${GENERIC_PROMPT_NAME}" has no prompt of its own (this prompt has ` +
      `its name): use this prompt with ${GENERIC_PROMPT_ARGUMENT} "${GENERIC_PROMPT_NAME}".`
    : "";
  return {
    name: GENERIC_PROMPT_NAME,
    title: "Use a skill",
    description: "Use one of the served Agent Skills: its SKILL.md is attached for the " +
      `assistant to follow. Complete the ${GENERIC_PROMPT_ARGUMENT} argument to see the ` +
      `skills.${collision}`,
    arguments: [{
      name: GENERIC_PROMPT_ARGUMENT,
      description: "The skill's name, e.g. theme-factory",
      required: true,
    }],
  };
}
