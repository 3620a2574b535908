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

/**
 * Whether a path is one an OAuth client probes or calls while discovering
 * how to authorize (RFC 9728 protected resource metadata, RFC 8414 / OpenID
 * authorization server metadata under `/.well-known/`, and the default
 * `/register`, `/authorize` and `/token` endpoints clients fall back to when
 * no metadata is found). skillgate serves none of them.
 *
 * @param pathname A request URL's path.
 * @returns True for those paths.
 *
 * Source: MCP 2025-11-25, "Authorization" (authorization is optional;
 * discovery through `/.well-known/oauth-protected-resource` and
 * `/.well-known/oauth-authorization-server`, with fallback endpoints).
 */
export function isOAuthDiscoveryPath(pathname: string): boolean {
  return pathname.startsWith("/.well-known/") ||
    pathname === "/register" || pathname === "/authorize" || pathname === "/token";
}

/**
 * The answer on an OAuth discovery or endpoint path: 404, so a client learns
 * at once that this server does not use OAuth (the SDK client then treats the
 * resource as having no metadata, rather than failing on an HTTP 401 from the
 * metadata document itself), with an OAuth-shaped error body (RFC 6749
 * section 5.2: `error`, `error_description`) whose description tells the
 * user what to do instead, which clients that surface OAuth errors show.
 *
 * @returns The 404 response, `application/json`.
 */
export function noOAuthResponse(): Response {
  return new Response(
    JSON.stringify({
      error: "invalid_request",
      error_description: "This skillgate server does not use OAuth: configure the client to send " +
        "the server's bearer token as the header Authorization: Bearer <token> (ask the " +
        "server's owner for it)",
    }),
    { status: 404, headers: { "content-type": "application/json" } },
  );
}
