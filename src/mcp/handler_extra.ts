/**
 * Adapts the v2 SDK's per-request handler context (`ctx.mcpReq`, `ctx.http`)
 * to the small shape our handlers use: the request's abort signal, the HTTP
 * answer ticket riding on `authInfo` (src/mcp/answer_budget.ts), and a way to
 * send a notification tied to the request (progress).
 *
 * @module
 */

import type { HandlerContext } from "./sdk.ts";
import type { HandlerExtra } from "./tool_call_extra.ts";

/**
 * The {@linkcode HandlerExtra} of one request.
 *
 * @param ctx The SDK's handler context for the request being answered.
 * @returns Its signal, its HTTP `authInfo` (absent on stdio) and a
 *   request-related notification sender.
 */
export function handlerExtra(ctx: HandlerContext): HandlerExtra {
  const authInfo = ctx.http?.authInfo as { extra?: Record<string, unknown> } | undefined;
  return {
    signal: ctx.mcpReq.signal,
    authInfo,
    sendNotification: (notification) => ctx.mcpReq.notify(notification),
  };
}
