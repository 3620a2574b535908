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
import type { CompleteRequest, CompleteResult } from "../sdk.ts";
import { catalogIndex } from "../catalog_index.ts";
import { assertClientString } from "../client_strings.ts";
import { GENERIC_PROMPT_ARGUMENT, GENERIC_PROMPT_NAME } from "../prompts/prompt_skills.ts";
import {
  catalogPrefixes,
  SKILL_FILE_URI_TEMPLATE,
  SKILL_PREFIXED_FILE_URI_TEMPLATE,
} from "../resources/skill_uri.ts";
import { PREFIX_SEPARATOR } from "../../skills/prefix_separator.ts";
import { completeBySubstring } from "./complete_values.ts";

/** The completions family (capability `completions: {}`). */
export const completionsFamily: MethodFamily = {
  name: "completions",
  capabilities: () => ({ completions: {} }),
  install: (server, context) => {
    server.setRequestHandler(
      "completion/complete",
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
 * @throws {ProtocolError} -32602 before any lookup when the argument's value is
 *   over MAX_COMPLETION_VALUE_CHARS (1,024), the prompt or context name over
 *   MAX_CLIENT_NAME_CHARS (255), the argument name over 255, or the
 *   reference URI over MAX_URI_CHARS (8,192).
 *
 * Source: MCP 2025-11-25, "Completion".
 */
export function complete(catalog: Catalog, params: CompleteRequest["params"]): CompleteResult {
  return { completion: { ...completeValues(catalog, params) } };
}

function completeValues(catalog: Catalog, params: CompleteRequest["params"]) {
  const { ref, argument } = params;
  assertClientString("completion", "The argument value", argument.value);
  assertClientString("name", "The argument name", argument.name);
  if (ref.type === "ref/prompt") {
    assertClientString("name", "The prompt name", ref.name);
    if (ref.name === GENERIC_PROMPT_NAME && argument.name === GENERIC_PROMPT_ARGUMENT) {
      const invocable = catalogIndex(catalog).invocable;
      return completeBySubstring(invocable.names, argument.value, {
        lowerCandidates: invocable.lowerNames,
      });
    }
  } else if (ref.uri === SKILL_FILE_URI_TEMPLATE) {
    if (argument.name === "name") {
      // A prefixed name (PREFIX__NAME) has its own template: `{name}` is one URI segment, and
      // such a skill's URI is skill://PREFIX/NAME/... (review r14, H7).
      const names = catalogIndex(catalog).all.names.filter((name) =>
        !name.includes(PREFIX_SEPARATOR)
      );
      return completeBySubstring(names, argument.value);
    }
    const skillName = params.context?.arguments?.["name"];
    assertClientString("name", "The context argument name", skillName);
    const skill = skillName === undefined || skillName.includes(PREFIX_SEPARATOR)
      ? undefined
      : catalog.byName.get(skillName);
    if (argument.name === "path" && skill !== undefined) {
      return completeBySubstring(skill.files.map((file) => file.path), argument.value);
    }
  } else if (ref.uri === SKILL_PREFIXED_FILE_URI_TEMPLATE) {
    const prefixes = catalogPrefixes(catalog);
    if (argument.name === "prefix") return completeBySubstring([...prefixes], argument.value);
    const prefix = params.context?.arguments?.["prefix"];
    assertClientString("name", "The context argument prefix", prefix);
    if (prefix === undefined || !prefixes.has(prefix)) return NO_COMPLETION;
    const head = `${prefix}${PREFIX_SEPARATOR}`;
    if (argument.name === "name") {
      const names = catalogIndex(catalog).all.names.flatMap((name) =>
        name.startsWith(head) ? [name.slice(head.length)] : []
      );
      return completeBySubstring(names, argument.value);
    }
    const skillName = params.context?.arguments?.["name"];
    assertClientString("name", "The context argument name", skillName);
    const skill = skillName === undefined ? undefined : catalog.byName.get(`${head}${skillName}`);
    if (argument.name === "path" && skill !== undefined) {
      return completeBySubstring(skill.files.map((file) => file.path), argument.value);
    }
  } else {
    assertClientString("uri", "The reference URI", ref.uri);
  }
  return NO_COMPLETION;
}

const NO_COMPLETION = Object.freeze({ values: [], total: 0, hasMore: false });
