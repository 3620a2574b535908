/**
 * The `prompts/get` result that hands a skill to the assistant: a short text
 * telling it to follow the skill, and the skill's SKILL.md, exactly as on
 * disk, as an embedded resource. Both are `user` messages: clients insert a
 * prompt's messages as the user's turn and attach embedded resources from it,
 * while an `assistant` message would present the instructions as something
 * the model already said (and several clients drop non-text assistant
 * content).
 *
 * @module
 */

import { MAX_RESOURCE_READ_BYTES } from "../../caps.ts";
import { FileTooLargeError } from "../../files/bounded_read.ts";
import { PathRefusedError } from "../../files/path_gate.ts";
import type { Skill } from "../../skills/skill.ts";
import {
  type GetPromptResult,
  type PromptMessage,
  ProtocolError,
  ProtocolErrorCode,
} from "../sdk.ts";
import { readServedFile, servedContents } from "../resources/read_served_file.ts";
import { skillFileUri } from "../resources/skill_uri.ts";

/** Media type of the embedded SKILL.md. */
const SKILL_MD_MEDIA_TYPE = "text/markdown";

/**
 * Builds the prompt result for a skill, reading its SKILL.md through the
 * path gate at request time.
 *
 * @param skill A served, user-invocable skill.
 * @param options `maxBytes`: largest SKILL.md embedded, in bytes
 *   (default {@linkcode MAX_RESOURCE_READ_BYTES}).
 * @returns `{description, messages}`: a `user` text message naming the skill
 *   and saying how to read its other files, then a `user` message whose
 *   content is `{type: "resource", resource: {uri: skill://<name>/SKILL.md,
 *   mimeType: "text/markdown", text}}` holding the file's exact text (base64
 *   `blob` instead if it is not strictly UTF-8), for the assistant.
 * @throws {ProtocolError} -32602 with the reason when SKILL.md is not served
 *   now (the gate refuses it, it changed after listing, the skill is kept at
 *   its last good version: `src/skills/last_good.ts`) or is larger than
 *   `maxBytes`: expected states, not internal errors (review n7).
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: MCP 2025-11-25, "Prompts" (messages with embedded resources).
 */
export async function buildSkillPromptResult(
  skill: Skill,
  options: { maxBytes?: number } = {},
): Promise<GetPromptResult> {
  const uri = skillFileUri(skill.name, skill.skillMdFile);
  let bytes: Uint8Array;
  try {
    bytes = await readServedFile(
      skill,
      skill.skillMdFile,
      options.maxBytes ?? MAX_RESOURCE_READ_BYTES,
    );
  } catch (error) {
    if (error instanceof PathRefusedError || error instanceof FileTooLargeError) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The instructions of skill "${skill.name}" cannot be served: ${error.message}`,
      );
    }
    throw error;
  }
  const instruction: PromptMessage = {
    role: "user",
    content: {
      type: "text",
      text: `Use the Agent Skill "${skill.name}": follow the instructions in its ` +
        `${skill.skillMdFile}, attached below (${uri}). When they refer to other files of the ` +
        `skill, read them as resources under skill://${encodeURIComponent(skill.name)}/ or ` +
        "with the skill_file tool.",
    },
  };
  const attachment: PromptMessage = {
    role: "user",
    content: {
      type: "resource",
      resource: servedContents(uri, SKILL_MD_MEDIA_TYPE, bytes),
      annotations: { audience: ["assistant"], priority: 1 },
    },
  };
  return { description: skill.description, messages: [instruction, attachment] };
}
