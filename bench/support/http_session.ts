/**
 * A hand-written Streamable HTTP client for the benchmark: `initialize`, then
 * JSON-RPC requests in that session with `fetch`. Not the SDK client, so its
 * cost stays out of the figures and it can send what the SDK would refuse
 * (4 MiB names, forged cursors).
 *
 * @module
 */

import {
  INITIALIZE,
  INITIALIZED,
  POST_HEADERS,
  PROTOCOL_VERSION,
} from "../../tests/support/mcp_messages.ts";

/** One session on a server. */
export interface BenchHttpSession {
  readonly url: string;
  readonly sessionId: string;
  /**
   * Sends one request and reads the whole answer.
   *
   * @returns The HTTP status and the answer's text.
   * @throws When the connection fails or `timeoutMs` passes.
   */
  call(
    method: string,
    params: Record<string, unknown>,
    options?: { timeoutMs?: number },
  ): Promise<{ status: number; text: string }>;
  /** Ends the session (DELETE); never throws. */
  close(): Promise<void>;
}

/**
 * Opens a session: `initialize` and `notifications/initialized`.
 *
 * @param url The MCP endpoint.
 * @param options `timeoutMs` for each of the two requests. @default 30000
 * @returns The session.
 * @throws {Error} When the server refuses (status and text in the message).
 */
export async function openBenchSession(
  url: string,
  options: { timeoutMs?: number } = {},
): Promise<BenchHttpSession> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const response = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
    body: INITIALIZE,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (sessionId === null) {
    throw new Error(`initialize answered HTTP ${response.status}: ${text.slice(0, 120)}`);
  }
  const headers = {
    ...POST_HEADERS,
    "mcp-protocol-version": PROTOCOL_VERSION,
    "mcp-session-id": sessionId,
  };
  const initialized = await fetch(url, {
    method: "POST",
    headers,
    body: INITIALIZED,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await initialized.body?.cancel();
  let id = 10;
  return {
    url,
    sessionId,
    call: async (method, params, callOptions = {}) => {
      const answer = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
        signal: AbortSignal.timeout(callOptions.timeoutMs ?? timeoutMs),
      });
      return { status: answer.status, text: await answer.text() };
    },
    close: async () => {
      try {
        const answer = await fetch(url, {
          method: "DELETE",
          headers,
          signal: AbortSignal.timeout(5_000),
        });
        await answer.body?.cancel();
      } catch { /* the server may be gone */ }
    },
  };
}
