/**
 * The prompts family: one prompt per user-invocable skill plus the generic
 * `skill` prompt, served from the catalog snapshot with the SDK's low-level
 * `prompts/list` and `prompts/get` handlers. Completion of the generic
 * prompt's `name` argument lives in the completions family.
 *
 * @module
 */

import { PROMPT_PAGE_SIZE } from "../../caps.ts";
import type { MethodFamily } from "../family.ts";
import { getPrompt } from "./get_prompt.ts";
import { listPromptPage } from "./prompt_page.ts";

/**
 * The prompts family (capability `prompts: {listChanged: true}`; false on a
 * stateless server, which can send no notifications).
 */
export const promptsFamily: MethodFamily = {
  name: "prompts",
  capabilities: (context) => ({
    // Live refresh sends prompts/list_changed; --static freezes the catalog (src/refresh/).
    prompts: { listChanged: context.isStateless !== true && !context.config.options.static },
  }),
  install: (server, context) => {
    server.setRequestHandler(
      "prompts/list",
      (request) =>
        listPromptPage(context.store.current(), {
          cursor: request.params?.cursor,
          pageSize: PROMPT_PAGE_SIZE,
        }),
    );
    server.setRequestHandler(
      "prompts/get",
      (request) =>
        getPrompt(context.store.current(), request.params.name, request.params.arguments),
    );
  },
};
