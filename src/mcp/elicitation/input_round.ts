/**
 * The 2026-07-28 way to ask the user: a `tools/call` answers with an
 * `input_required` result carrying an elicitation request and an opaque
 * `requestState`; the client asks the user and calls again with the answer
 * (`inputResponses`) and the state echoed. There is no server-to-client
 * request on that revision, so this replaces `elicitation/create` there;
 * 2025-era clients keep elicitation (src/mcp/tool_call_extra.ts).
 *
 * The state is untrusted client input: `skill_run` puts a confirmation token
 * in it (HMAC over the exact run preview, single use, expiring:
 * src/scripts/confirm/confirmer.ts) and checks it on the retry like any
 * token. Nothing here trusts it.
 *
 * @module
 */

import { type HandlerContext, inputRequired, type InputRequiredResult } from "../sdk.ts";
import type { InputRound, UserAnswer } from "../tools/tool.ts";
import {
  confirmationForm,
  type ConfirmationWords,
  readRunConfirmation,
  RUN_CONFIRMATION_SCHEMA,
} from "./run_confirmation.ts";

/** The envelope key of the capabilities the client declares per request. */
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The key of our confirmation request in `inputRequests` / `inputResponses`. */
export const CONFIRM_INPUT_KEY = "confirm";

/**
 * The capabilities a 2026-07-28 request declared in its `_meta` envelope.
 *
 * @param ctx The SDK's handler context.
 * @returns The declared capabilities, or undefined on a 2025-era request.
 */
export function declaredCapabilities(
  ctx: HandlerContext,
): { extensions?: Record<string, unknown>; elicitation?: unknown } | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_KEY];
  return typeof declared === "object" && declared !== null
    ? declared as { extensions?: Record<string, unknown>; elicitation?: unknown }
    : undefined;
}

/**
 * The input round of a 2026-07-28 request, or undefined for a 2025-era one
 * (a request without the `_meta` envelope).
 *
 * @param ctx The SDK's handler context of the `tools/call`.
 * @returns The echoed state (raw), the user's answer when the retry carries
 *   one, whether the request declared elicitation, and the builder of the
 *   `input_required` result.
 */
export function inputRoundOf(ctx: HandlerContext): InputRound | undefined {
  const envelope = ctx.mcpReq.envelope;
  if (envelope === undefined) return undefined;
  // The SDK types the envelope as an empty object; it holds the reserved keys
  // as received (validated by the SDK's dispatch before the handler runs).
  const declared = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_KEY] as
    | { elicitation?: unknown }
    | undefined;
  const state = ctx.mcpReq.requestState<unknown>();
  const answer = answerOf(ctx.mcpReq.inputResponses?.[CONFIRM_INPUT_KEY]);
  return {
    ...(typeof state === "string" ? { state } : {}),
    ...(answer === undefined ? {} : { answer }),
    canElicit: declared?.elicitation !== undefined,
    ask: (message: string, requestState: string, words?: ConfirmationWords): InputRequiredResult =>
      inputRequired({
        inputRequests: {
          [CONFIRM_INPUT_KEY]: inputRequired.elicit({
            mode: "form",
            message,
            requestedSchema: structuredClone(
              words === undefined ? RUN_CONFIRMATION_SCHEMA : confirmationForm(words),
            ) as Parameters<
              typeof inputRequired.elicit
            >[0]["requestedSchema"],
          }),
        },
        requestState,
      }),
  };
}

/** Reads an elicitation answer the client sent; anything malformed is no answer. */
function answerOf(response: unknown): UserAnswer | undefined {
  if (typeof response !== "object" || response === null) return undefined;
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel") return undefined;
  const fields = typeof content === "object" && content !== null
    ? content as Record<string, unknown>
    : undefined;
  return readRunConfirmation({ action, content: fields });
}
