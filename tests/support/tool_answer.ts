/**
 * Reading a tool's answer the way a client does: a success's JSON is its
 * `structuredContent`; an error (`isError`) carries no `structuredContent`
 * and its JSON `{error, message, hint, ...details}` is the one text block
 * (see src/mcp/tool_result.ts for why).
 *
 * @module
 */

import assert from "node:assert/strict";

/** The JSON of a tool error, as a caller reads it. */
export interface ToolErrorJson {
  readonly error: string;
  readonly message: string;
  readonly hint: string;
  readonly [detail: string]: unknown;
}

/** What both SDK client lines return from `callTool` (the fields read here). */
export interface CalledTool {
  readonly isError?: boolean | undefined;
  readonly structuredContent?: unknown;
  readonly content?: unknown;
}

/**
 * The error JSON of an `isError` tool result.
 *
 * @param result What `callTool` returned.
 * @returns `{error, message, hint, ...details}` parsed from the one text block.
 * @throws {AssertionError} When the result is not an error, carries
 *   `structuredContent`, or its text is not the error JSON.
 */
export function toolErrorJson(result: CalledTool): ToolErrorJson {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, "an error carries no structuredContent");
  const content = result.content as readonly { type: string; text?: string }[];
  assert.equal(content.length, 1, "an error is one text block");
  const block = content[0];
  assert.equal(block?.type, "text");
  const body = JSON.parse(block?.text ?? "") as ToolErrorJson;
  for (const key of ["error", "message", "hint"] as const) {
    assert.equal(typeof body[key], "string", `the error JSON has a string "${key}"`);
    assert.ok(body[key].length > 0, `the error JSON's "${key}" is not empty`);
  }
  return body;
}

/**
 * A tool's JSON answer, success or error.
 *
 * @param result What `callTool` returned.
 * @returns `structuredContent` for a success, the error JSON for an error.
 */
export function toolJson(result: CalledTool): Record<string, unknown> {
  if (result.isError === true) return { ...toolErrorJson(result) };
  assert.ok(result.structuredContent !== undefined, "a success carries structuredContent");
  return result.structuredContent as Record<string, unknown>;
}
