/**
 * The view's side of MCP Apps: the ext-apps `App` connected to the host, and
 * tool calls that return the tool's JSON (or throw its error).
 *
 * @module
 */

/// <reference lib="dom" />

import { App } from "@modelcontextprotocol/ext-apps";

/** A tool error as skillgate sends it (`{error, message, hint}`). */
export class ToolCallError extends Error {
  /**
   * @param code The stable error code.
   * @param message What was wrong.
   * @param hint What to do.
   */
  constructor(readonly code: string, message: string, readonly hint: string) {
    super(message);
  }
}

/** The app and its tool caller. */
export interface Connection {
  readonly app: App;
  /** Calls a server tool through the host; resolves with its JSON, throws {@linkcode ToolCallError}. */
  call<T>(name: string, args: Record<string, unknown>): Promise<T>;
}

/**
 * Creates the app (handlers must be set before `connect`).
 *
 * @param name The view's name.
 * @returns The connection.
 */
export function createConnection(name: string): Connection {
  const app = new App({ name, version: "1.0.0" });
  return {
    app,
    call: async <T>(tool: string, args: Record<string, unknown>) => {
      const result = await app.callServerTool({ name: tool, arguments: args });
      return readResult<T>(result);
    },
  };
}

/**
 * Reads a tool result.
 *
 * @param result The `CallToolResult`.
 * @returns The structured JSON.
 * @throws {ToolCallError} For an `isError` result.
 */
export function readResult<T>(
  result: { isError?: boolean | undefined; structuredContent?: unknown; content?: unknown[] },
): T {
  if (result.isError === true) {
    const first = (result.content?.[0] ?? {}) as { text?: string };
    let body: { error?: string; message?: string; hint?: string } = {};
    try {
      body = JSON.parse(first.text ?? "{}");
    } catch { /* not JSON: shown as is */ }
    throw new ToolCallError(
      body.error ?? "ERROR",
      body.message ?? first.text ?? "The call failed",
      body.hint ?? "",
    );
  }
  return result.structuredContent as T;
}
