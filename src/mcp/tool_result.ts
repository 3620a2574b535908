/**
 * The ONE place tool results are built. Every tool answers through
 * {@linkcode toolSuccess} or {@linkcode toolError}; their result type,
 * {@linkcode ToolResult}, carries a brand no other module can produce, so a
 * tool cannot hand `tools/call` a result shaped some other way.
 *
 * - Success: the JSON as `structuredContent` (it conforms to the tool's
 *   declared `outputSchema`; tests/mcp/tools/output_schema_test.ts guards it)
 *   and the same JSON as one text block, for older clients.
 * - Failure: an `isError` result WITHOUT `structuredContent`; its one text
 *   block is the JSON `{error, message, hint, ...details}`, `error` a stable
 *   code.
 *
 * Why errors carry no `structuredContent`: every tool declares an
 * `outputSchema` for its success shape, and the official SDK client 1.32.x
 * validates `structuredContent` against it whenever it is present, error or
 * not, so an error object there made `Client.callTool` THROW and the model
 * never saw the message or the hint. The spec (MCP 2025-11-25, "Tools",
 * "Output Schema") requires structured results to conform only when a tool
 * succeeds and says nothing of error results; both SDK lines (1.32.x and the
 * 2.x client) accept an `isError` result without `structuredContent`. The
 * other design, declaring each `outputSchema` as a union of the success and
 * the error shape, would weaken every success schema clients and models read
 * (every field optional or a `oneOf` at the top) for no client that needs it.
 *
 * @module
 */

import type { CallToolResult } from "./sdk.ts";

/** Stable error codes a tool may answer with. Additive; never renamed. */
export type ToolErrorCode =
  | "INVALID_ARGUMENTS"
  | "SKILL_NOT_FOUND"
  // a skill kept at its last good version: its SKILL.md is not served (src/skills/last_good.ts)
  | "SKILL_UNAVAILABLE"
  | "BUDGET_EXCEEDED"
  | "INTERNAL"
  // the answer budget stayed spent (src/mcp/answer_budget.ts): retry later
  | "SERVER_BUSY"
  // the owner's settings files could not be read since start-up, or not in time
  // (src/mcp/owner_files_wait.ts): nothing is served until they are; retry later
  | "OWNER_SETTINGS_UNREAD"
  // skill_run (src/mcp/tools/skill_run.ts)
  | "SCRIPT_NOT_DECLARED"
  | "SCRIPT_NOT_GRANTED"
  | "SCRIPT_UNAVAILABLE"
  | "SCRIPT_PATH_REFUSED"
  | "SCRIPTS_DISABLED"
  | "CONFIRMATION_DECLINED"
  // the text the user must read in full to confirm a run is over MAX_CONFIRMATION_BYTES
  | "CONFIRMATION_TOO_LONG"
  | "TOKEN_INVALID"
  | "TOKEN_REUSED"
  | "TOKEN_EXPIRED"
  | "DRAFT_CHANGED"
  | "RUN_QUEUE_FULL"
  | "RUN_CANCELLED"
  | "RUN_FAILED"
  // skill_settings_write (src/mcp/tools/skill_settings_write.ts) and the trusted part's
  // checks of it (src/config/file/view_override_write.ts)
  | "SETTINGS_REFUSED"
  | "CONFIRMATION_UNAVAILABLE"
  | "SETTINGS_UNAVAILABLE"
  | "FRONTMATTER_SETTING"
  | "OVERRIDE_OWNED"
  | "OVERRIDE_INVALID"
  | "OVERRIDE_LIMIT";

/** The JSON of a tool error, as the text block of an `isError` result. */
export interface ToolErrorBody {
  readonly error: ToolErrorCode;
  readonly message: string;
  readonly hint: string;
}

/** Only this module can name it, so only this module builds a {@linkcode ToolResult}. */
declare const builtHere: unique symbol;

/** A tool result built by {@linkcode toolSuccess} or {@linkcode toolError}; nothing else. */
export type ToolResult = CallToolResult & { readonly [builtHere]: true };

/**
 * Wraps a tool's JSON answer (MCP 2025-06-18 structured output: the JSON as
 * `structuredContent` and, for older clients, as one text block).
 *
 * @param value A JSON object conforming to the tool's `outputSchema`.
 * @returns The tool result.
 */
export function toolSuccess(value: object): ToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  } as ToolResult;
}

/**
 * Builds a tool error the model can act on: what was wrong and what to do.
 * It carries no `structuredContent` (see the module doc for why): the JSON
 * is the result's one text block.
 *
 * @param code Stable error code.
 * @param message What was wrong, with the offending value in quotes.
 * @param hint What to do next (e.g. the names that are served).
 * @param details More fields the model needs to act, after `hint` (e.g.
 *   `skill_run`'s new `confirmToken` and `preview`); they cannot replace
 *   `error`, `message` or `hint`. @default none
 * @returns An `isError` result whose text is `{error, message, hint, ...details}`.
 */
export function toolError(
  code: ToolErrorCode,
  message: string,
  hint: string,
  details: Record<string, unknown> = {},
): ToolResult {
  const body: ToolErrorBody = { error: code, message, hint };
  for (const [key, value] of Object.entries(details)) {
    if (!Object.hasOwn(body, key)) Object.defineProperty(body, key, { value, enumerable: true });
  }
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(body) }],
  } as ToolResult;
}
