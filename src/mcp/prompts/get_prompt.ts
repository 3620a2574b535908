/**
 * `prompts/get`: a skill's own prompt, or the generic `skill` prompt with the
 * skill's name as argument. Unknown names are protocol errors -32602 that
 * name prompts the client can use instead.
 *
 * @module
 */

import { quotePath } from "../../files/path_gate.ts";
import type { Catalog } from "../../skills/skill.ts";
import { catalogIndex, closeNames, type NameList } from "../catalog_index.ts";
import { assertClientString, MAX_SUGGESTION_NEEDLE_CHARS } from "../client_strings.ts";
import { type GetPromptResult, ProtocolError, ProtocolErrorCode } from "../sdk.ts";
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
 * @throws {ProtocolError} (as a rejection) -32602 for a name (or `name` argument)
 *   over MAX_CLIENT_NAME_CHARS (255), refused before any lookup; for a
 *   prompt that is not served, for the generic
 *   prompt without a `name` argument, or with a name that is not a
 *   user-invocable skill; each message names prompts or skills that are
 *   served; when SKILL.md is not served now (the reason is named).
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
  assertClientString("name", "The prompt name", name);
  if (name === GENERIC_PROMPT_NAME) {
    const wanted = args?.[GENERIC_PROMPT_ARGUMENT];
    assertClientString("name", `The argument "${GENERIC_PROMPT_ARGUMENT}"`, wanted);
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
    const { shown, total } = closest(catalogIndex(catalog).invocable, name);
    const list = [
      GENERIC_PROMPT_NAME,
      ...shown.filter((candidate) => candidate !== GENERIC_PROMPT_NAME),
    ].join(", ");
    // Own prompts are the invocable skills but one named like the generic prompt; plus that one.
    const named = catalog.byName.get(GENERIC_PROMPT_NAME);
    const prompts = total + 1 - (named !== undefined && isUserInvocable(named) ? 1 : 0);
    throw invalid(
      `Unknown prompt ${quote(name)}; prompts served include: ${list} (${prompts} in all). ` +
        "Call prompts/list for all of them",
    );
  }
  return await buildSkillPromptResult(skill);
}

function invalid(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

function quote(value: string): string {
  return quotePath(
    value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}…` : value,
  );
}

/** Which skill names the generic prompt offers, close matches to `typed` first. */
function offered(catalog: Catalog, typed: string): string {
  const { shown, total } = closest(catalogIndex(catalog).invocable, typed);
  if (total === 0) return "no skill is offered as a prompt";
  return `skills offered include: ${shown.join(", ")} (${total} in all)`;
}

/**
 * Up to {@linkcode MAX_SUGGESTED} names, those close to `typed` (substring,
 * searched only for a `typed` of at most 64 characters, and stopping at the
 * eighth) first, then the first names of the list.
 */
function closest(list: NameList, typed: string): { shown: string[]; total: number } {
  const close = closeNames(list, typed, {
    max: MAX_SUGGESTED,
    maxNeedleChars: MAX_SUGGESTION_NEEDLE_CHARS,
  });
  const shown = [...close];
  for (let index = 0; index < list.names.length && shown.length < MAX_SUGGESTED; index++) {
    const name = list.names[index] as string;
    if (!close.includes(name)) shown.push(name);
  }
  return { shown, total: list.names.length };
}
