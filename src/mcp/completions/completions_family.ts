/**
 * The completions family: `completion/complete` for the generic `skill`
 * prompt's `name` argument (user-invocable skills) and for the
 * `skill://{name}/{+path}` resource template (`name`: every skill; `path`:
 * the files of the skill named in the context's `name` argument). Anything
 * else completes to nothing.
 *
 * @module
 */

import type { Catalog } from "../../skills/skill.ts";
import type { MethodFamily } from "../family.ts";
import { type CompleteRequest, CompleteRequestSchema, type CompleteResult } from "../sdk.ts";
import {
  GENERIC_PROMPT_ARGUMENT,
  GENERIC_PROMPT_NAME,
  invocableSkillNames,
} from "../prompts/prompt_skills.ts";
import { SKILL_FILE_URI_TEMPLATE } from "../resources/skill_uri.ts";
import { completeBySubstring } from "./complete_values.ts";

/** The completions family (capability `completions: {}`). */
export const completionsFamily: MethodFamily = {
  name: "completions",
  capabilities: () => ({ completions: {} }),
  install: (server, context) => {
    server.setRequestHandler(
      CompleteRequestSchema,
      (request) => complete(context.store.current(), request.params),
    );
  },
};

/**
 * Answers `completion/complete`.
 *
 * @param catalog The snapshot the request works on.
 * @param params The request's `ref`, `argument` and optional `context`.
 * @returns `{completion: {values, total, hasMore}}`; empty values for a
 *   reference or argument that has no completion.
 *
 * Source: MCP 2025-11-25, "Completion".
 */
export function complete(catalog: Catalog, params: CompleteRequest["params"]): CompleteResult {
  return { completion: { ...completeValues(catalog, params) } };
}

function completeValues(catalog: Catalog, params: CompleteRequest["params"]) {
  const { ref, argument } = params;
  if (ref.type === "ref/prompt") {
    if (ref.name === GENERIC_PROMPT_NAME && argument.name === GENERIC_PROMPT_ARGUMENT) {
      return completeBySubstring(invocableSkillNames(catalog), argument.value);
    }
  } else if (ref.uri === SKILL_FILE_URI_TEMPLATE) {
    if (argument.name === "name") {
      return completeBySubstring(catalog.skills.map((skill) => skill.name), argument.value);
    }
    const skillName = params.context?.arguments?.["name"];
    const skill = skillName === undefined ? undefined : catalog.byName.get(skillName);
    if (argument.name === "path" && skill !== undefined) {
      return completeBySubstring(skill.files.map((file) => file.path), argument.value);
    }
  }
  return { values: [], total: 0, hasMore: false };
}
