/**
 * One page of `prompts/list`: the generic `skill` prompt first, then one
 * prompt per skill that has its own, in name order.
 *
 * @module
 */

import type { Catalog, Skill } from "../../skills/skill.ts";
import { type ListPromptsResult, type Prompt, ProtocolError, ProtocolErrorCode } from "../sdk.ts";
import { decodeNameCursor, encodeNameCursor, foreignCursorMessage } from "../tools/cursor.ts";
import { assertClientString } from "../client_strings.ts";
import { upperBound } from "../resources/served_file.ts";
import { genericPrompt, hasOwnPrompt } from "./prompt_skills.ts";

/** Options of {@linkcode listPromptPage}. */
export interface PromptPageOptions {
  /** The cursor the client sent, if any. */
  readonly cursor?: string | undefined;
  /** Prompts per page; an integer of at least 2. */
  readonly pageSize: number;
}

/**
 * Lists the page of prompts that follows `cursor`.
 *
 * @param catalog The snapshot the request works on.
 * @param options The client's cursor and the page size.
 * @returns `{prompts, nextCursor?}`. The first page starts with the generic
 *   prompt; a cursor encodes the last skill name served, so a refresh between
 *   pages neither skips nor repeats a skill that stayed.
 * @throws {ProtocolError} -32602 when the cursor is over MAX_CURSOR_CHARS (8,192)
 *   or not one this server issued.
 * @throws {RangeError} When `pageSize` is not an integer of at least 2.
 *
 * Source: MCP 2025-11-25, "Prompts" and "Pagination".
 */
export function listPromptPage(catalog: Catalog, options: PromptPageOptions): ListPromptsResult {
  const { pageSize } = options;
  if (!Number.isSafeInteger(pageSize) || pageSize < 2) {
    throw new RangeError(`Option pageSize must be an integer of at least 2 (got "${pageSize}")`);
  }
  const prompts: Prompt[] = [];
  let start = 0;
  if (options.cursor === undefined) prompts.push(genericPrompt(catalog));
  else {
    assertClientString("cursor", "The cursor", options.cursor);
    const after = decodeNameCursor("prompts/list", options.cursor);
    if (after === null) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        foreignCursorMessage("prompts/list"),
      );
    }
    start = upperBound(catalog.skills, after, (skill) => skill.name);
  }
  let last: Skill | null = null;
  for (let index = start; index < catalog.skills.length; index++) {
    const skill = catalog.skills[index] as Skill;
    if (!hasOwnPrompt(skill)) continue;
    if (prompts.length === pageSize) {
      return { prompts, nextCursor: encodeNameCursor("prompts/list", (last as Skill).name) };
    }
    prompts.push(skillPrompt(skill));
    last = skill;
  }
  return { prompts };
}

/**
 * The `prompts/list` entry of a skill's own prompt.
 *
 * @param skill A skill with its own prompt.
 * @returns `{name, description}`: the skill's name and description; no
 *   arguments.
 */
export function skillPrompt(skill: Skill): Prompt {
  return { name: skill.name, description: skill.description };
}
