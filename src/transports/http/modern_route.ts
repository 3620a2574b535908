/**
 * The 2026-07-28 route of the HTTP endpoint. A POST whose body (or headers)
 * claims a modern protocol revision goes to the v2 SDK's stateless handler
 * (`createMcpHandler`, `legacy: "reject"`): per-request `_meta` envelope
 * checks, the unsupported-version error listing exactly what
 * `server/discover` lists, `Mcp-Method` / `Mcp-Name` header checks against
 * the body (400 on mismatch), `resultType` / `ttlMs` / `cacheScope`, and
 * `subscriptions/listen` streams. Everything else (a request with no modern
 * claim) is 2025-era traffic for our sessionful transport.
 *
 * Our front runs before this route: Host/Origin policy, bearer token,
 * connection and body limits, client admission (src/transports/http/handler.ts).
 *
 * @module
 */

import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type Server,
} from "../../mcp/sdk.ts";
import { registerLiveNotifier } from "../../mcp/live_servers.ts";

/**
 * True when `request` with the already-read `parsedBody` claims a modern
 * protocol revision (the SDK's own classification, so the two can never
 * disagree).
 *
 * @param request The HTTP request (headers are read; its body is not).
 * @param parsedBody The JSON body our front already read under its byte cap.
 * @returns Whether the request belongs to the 2026-07-28 route.
 */
export async function claimsModernEra(request: Request, parsedBody: unknown): Promise<boolean> {
  return !(await isLegacyRequest(request, parsedBody));
}

/**
 * Creates the modern route's handler: one SDK handler whose factory builds a
 * fresh server per request, registered for live-refresh notifications so
 * `subscriptions/listen` streams carry list changes and resource updates.
 *
 * @param createServer Builds one per-request modern-era server.
 * @param limits `maxBodyBytes`: the body cap our front already enforced, in
 *   bytes; `maxSubscriptions`: open `subscriptions/listen` streams at most
 *   (the front passes its session cap).
 * @returns The SDK handler; `close()` it at shutdown.
 */
export function createModernRoute(
  createServer: () => Server,
  limits: { maxBodyBytes: number; maxSubscriptions: number },
): McpHttpHandler {
  const handler = createMcpHandler(() => createServer(), {
    legacy: "reject",
    maxRequestBodySize: limits.maxBodyBytes,
    maxSubscriptions: limits.maxSubscriptions,
    onerror: () => {},
  });
  const unregister = registerLiveNotifier(handler.notify);
  const close = handler.close.bind(handler);
  handler.close = async () => {
    unregister();
    await close();
  };
  return handler;
}
