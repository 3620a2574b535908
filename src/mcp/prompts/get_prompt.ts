/**
 * `prompts/get`: a skill's own prompt, or the generic `skill` prompt with the
 * skill's name as argument. Unknown names are protocol errors -32602 that
 * name prompts the client can use instead.
 *
 * @module
 */

import { quotePath } from "../../files/path_gate.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { ErrorCode, type GetPromptResult, McpError } from "../sdk.ts";
import {
  GENERIC_PROMPT_ARGUMENT,
  GENERIC_PROMPT_NAME,
  hasOwnPrompt,
  isUserInvocable,
} from "./prompt_skills.ts";
import { buildSkillPromptResult } from "./skill_prompt_result.ts";

/** Names suggested in an error at most. */
const MAX_SUGGESTED = 8;
/** Characters of a client's name quoted in an error at most. */
const MAX_QUOTED_CHARS = 80;

/**
 * Answers `prompts/get`.
 *
 * @param catalog The snapshot the request works on.
 * @param name The prompt name the client sent.
 * @param args The prompt arguments the client sent, if any.
 * @returns The skill's prompt result (see `buildSkillPromptResult`).
 * @throws {McpError} (as a rejection) -32602 for a prompt that is not served, for the generic
 *   prompt without a `name` argument, or with a name that is not a
 *   user-invocable skill; each message names prompts or skills that are
 *   served. -32603 when SKILL.md cannot be read now.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: MCP 2025-11-25, "Prompts", error handling (-32602 for an invalid
 * prompt name or missing required arguments).
 */
export async function getPrompt(
  catalog: Catalog,
  name: string,
  args: Readonly<Record<string, string>> | undefined,
): Promise<GetPromptResult> {
  if (name === GENERIC_PROMPT_NAME) {
    const wanted = args?.[GENERIC_PROMPT_ARGUMENT];
    if (wanted === undefined || wanted === "") {
      throw invalid(
        `Prompt "${GENERIC_PROMPT_NAME}" needs the argument "${GENERIC_PROMPT_ARGUMENT}" ` +
          `(a skill's name); ${offered(catalog, "")}`,
      );
    }
    const skill = catalog.byName.get(wanted);
    if (skill === undefined || !isUserInvocable(skill)) {
      throw invalid(`No skill named ${quote(wanted)} is offered; ${offered(catalog, wanted)}`);
    }
    return await buildSkillPromptResult(skill);
  }
  const skill = catalog.byName.get(name);
  if (skill === undefined || !hasOwnPrompt(skill)) {
    const { shown, total } = closest(catalog, name, hasOwnPrompt);
    const list = [GENERIC_PROMPT_NAME, ...shown].join(", ");
    throw invalid(
      `Unknown prompt ${quote(name)}; prompts served include: ${list} (${total + 1} in all). ` +
        "Call prompts/list for all of them",
    );
  }
  return await buildSkillPromptResult(skill);
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function quote(value: string): string {
  return quotePath(
    value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}…` : value,
  );
}

/** Which skill names the generic prompt offers, close matches to `typed` first. */
function offered(catalog: Catalog, typed: string): string {
  const { shown, total } = closest(catalog, typed, isUserInvocable);
  if (total === 0) return "no skill is offered as a prompt";
  return `skills offered include: ${shown.join(", ")} (${total} in all)`;
}

/** Up to {@linkcode MAX_SUGGESTED} kept names, those close to `typed` (substring) first. */
function closest(
  catalog: Catalog,
  typed: string,
  keep: (skill: Skill) => boolean,
): { shown: string[]; total: number } {
  const names = catalog.skills.filter(keep).map((skill) => skill.name);
  const needle = typed.toLowerCase();
  const isClose = (candidate: string) =>
    needle !== "" &&
    (candidate.toLowerCase().includes(needle) || needle.includes(candidate.toLowerCase()));
  const ordered = [...names.filter(isClose), ...names.filter((candidate) => !isClose(candidate))];
  return { shown: ordered.slice(0, MAX_SUGGESTED), total: names.length };
}
