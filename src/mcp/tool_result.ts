/**
 * The two shapes every tool answers with: success carries the JSON as
 * `structuredContent` and the same JSON as text; failure is an `isError`
 * result whose JSON is `{error, message, hint}` with a stable `error` code.
 *
 * @module
 */

import type { CallToolResult } from "./sdk.ts";

/** Stable error codes a tool may answer with. Additive; never renamed. */
export type ToolErrorCode =
  | "INVALID_ARGUMENTS"
  | "SKILL_NOT_FOUND"
  | "BUDGET_EXCEEDED"
  | "INTERNAL"
  // the answer budget stayed spent (src/mcp/answer_budget.ts): retry later
  | "SERVER_BUSY"
  // skill_run (src/mcp/tools/skill_run.ts)
  | "SCRIPT_NOT_DECLARED"
  | "SCRIPT_NOT_GRANTED"
  | "SCRIPT_UNAVAILABLE"
  | "SCRIPT_PATH_REFUSED"
  | "SCRIPTS_DISABLED"
  | "CONFIRMATION_DECLINED"
  | "TOKEN_INVALID"
  | "TOKEN_REUSED"
  | "TOKEN_EXPIRED"
  | "DRAFT_CHANGED"
  | "RUN_QUEUE_FULL"
  | "RUN_CANCELLED"
  | "RUN_FAILED";

/** The JSON of a tool error. */
export interface ToolErrorBody {
  readonly error: ToolErrorCode;
  readonly message: string;
  readonly hint: string;
}

/**
 * Wraps a tool's JSON answer (MCP 2025-06-18 structured output: the JSON as
 * `structuredContent` and, for older clients, as one text block).
 *
 * @param value A JSON object.
 * @returns The tool result.
 */
export function toolSuccess(value: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * Builds a tool error the model can act on: what was wrong and what to do.
 *
 * @param code Stable error code.
 * @param message What was wrong, with the offending value in quotes.
 * @param hint What to do next (e.g. the names that are served).
 * @param details More fields the model needs to act, after `hint` (e.g.
 *   `skill_run`'s new `confirmToken` and `preview`). @default none
 * @returns An `isError` result carrying `{error, message, hint, ...details}`.
 */
export function toolError(
  code: ToolErrorCode,
  message: string,
  hint: string,
  details: Record<string, unknown> = {},
): CallToolResult {
  const body: ToolErrorBody = { error: code, message, hint, ...details };
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}
