/**
 * The HTTP answers skillgate gives itself (before the SDK's transport sees a
 * request): JSON-RPC error bodies with `id: null`, as the Streamable HTTP
 * transport answers transport-level failures, and the health documents.
 *
 * @module
 */

import { HTTP_RETRY_AFTER_SECONDS } from "../../caps.ts";

/** JSON-RPC error codes used at the HTTP layer. */
export const JSONRPC_PARSE_ERROR = -32700;
/** Internal error (JSON-RPC 2.0). */
export const JSONRPC_INTERNAL_ERROR = -32603;
/** Implementation-defined server error, as the SDK's transport uses for HTTP-level refusals. */
export const JSONRPC_SERVER_ERROR = -32000;
/** Session not found, as the SDK's transport answers an unknown `Mcp-Session-Id`. */
export const JSONRPC_SESSION_NOT_FOUND = -32001;

/**
 * A JSON-RPC error response carried by an HTTP status.
 *
 * @param status The HTTP status, 400-599.
 * @param code The JSON-RPC error code.
 * @param message Sentence case, no final period, no host paths or secrets.
 * @param options Extra headers (`WWW-Authenticate`, `Retry-After`, `Allow`).
 * @returns `{"jsonrpc":"2.0","error":{code,message},"id":null}` as `application/json`.
 */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  options: { headers?: Record<string, string> } = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
    { status, headers: { "content-type": "application/json", ...options.headers } },
  );
}

/**
 * A refusal that asks the client to come back later: 429 (one session asks
 * too much) or 503 (the server is full or shutting down), with `Retry-After`.
 *
 * @param status 429 or 503.
 * @param message Why, in sentence case.
 * @param retryAfterSeconds When to come back, in whole seconds (the
 *   handler's estimate of when a slot frees). @default HTTP_RETRY_AFTER_SECONDS (1)
 * @returns The response.
 */
export function retryLaterResponse(
  status: 429 | 503,
  message: string,
  retryAfterSeconds: number = HTTP_RETRY_AFTER_SECONDS,
): Response {
  return jsonRpcErrorResponse(status, JSONRPC_SERVER_ERROR, message, {
    headers: { "retry-after": String(retryAfterSeconds) },
  });
}

/**
 * A health document: `{"status": ...}` with `cache-control: no-store`.
 *
 * @param status 200 or 503.
 * @param value `ok`, `ready`, `loading`, `busy` or `draining`.
 * @param options `retryAfterSeconds`: sent as `Retry-After` (with `busy`).
 * @returns The response.
 */
export function healthResponse(
  status: 200 | 503,
  value: string,
  options: { retryAfterSeconds?: number } = {},
): Response {
  const retry = options.retryAfterSeconds === undefined
    ? {}
    : { "retry-after": String(options.retryAfterSeconds) };
  return new Response(JSON.stringify({ status: value }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...retry },
  });
}
