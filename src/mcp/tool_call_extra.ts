/**
 * What a tool call may use beyond its arguments: the request's cancellation
 * signal, a progress sender (when the client sent a progress token) and a
 * way to ask the user (when the client declared elicitation). Built per
 * request by the tools handler, so tools never touch the SDK themselves.
 *
 * @module
 */

import {
  confirmationForm,
  type ConfirmationWords,
  readRunConfirmation,
  RUN_CONFIRMATION_SCHEMA,
} from "./elicitation/run_confirmation.ts";
import { holdAnswerBytes } from "./answer_budget.ts";
import type { Server } from "./sdk.ts";
import type { ToolCallExtra, UserAnswer } from "./tools/tool.ts";

/** The requested schema of a form elicitation, as the SDK types it. */
type ElicitSchema = Extract<
  Parameters<Server["elicitInput"]>[0],
  { requestedSchema: unknown }
>["requestedSchema"];

/** What the SDK hands a request handler (the parts used here). */
export interface HandlerExtra {
  readonly signal: AbortSignal;
  /** Carries the HTTP request's answer ticket (see `answer_budget.ts`). */
  readonly authInfo?: { extra?: Record<string, unknown> } | undefined;
  readonly sendNotification: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }) => Promise<void>;
}

/**
 * Builds the extra for one `tools/call`.
 *
 * @param server The server (its client capabilities decide `askUser`).
 * @param request The request's `_meta.progressToken`, when any.
 * @param extra The SDK's handler extra.
 * @returns The tool call extra.
 *
 * Source: MCP 2025-11-25, "Progress" (notifications/progress carry the
 * request's progressToken) and "Elicitation" (only to clients that declared it).
 */
export function toolCallExtra(
  server: Server,
  request: { progressToken?: string | number | undefined },
  extra: HandlerExtra,
): ToolCallExtra {
  const progressToken = request.progressToken;
  const canElicit = server.getClientCapabilities()?.elicitation !== undefined;
  return {
    signal: extra.signal,
    holdAnswerBytes: (bytes: number) => holdAnswerBytes(extra, bytes),
    ...(progressToken === undefined ? {} : {
      sendProgress: (progress: number, message: string) =>
        extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, message },
        }),
    }),
    ...(!canElicit ? {} : {
      askUser: async (message: string, words?: ConfirmationWords): Promise<UserAnswer> => {
        const result = await server.elicitInput({
          mode: "form",
          message,
          requestedSchema: structuredClone(
            words === undefined ? RUN_CONFIRMATION_SCHEMA : confirmationForm(words),
          ) as ElicitSchema,
        }, { signal: extra.signal });
        return readRunConfirmation(result);
      },
    }),
  };
}
