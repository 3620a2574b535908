/**
 * The client unit: what fairness is counted per. A session is always its own
 * unit for requests in flight (32 each). For sessions, the unit is:
 *
 * - bound to loopback: one unit, `local`. Every local user can reach the
 *   port and a token (when set) is one shared secret, so there is no identity
 *   to be fair between; the promise there is that the server survives and a
 *   new session is always admitted (the least-recently-used idle session is
 *   closed for it).
 * - bound beyond loopback (a token is then required): the peer's address,
 *   `addr:<ip>`; each address may hold MAX_HTTP_SESSIONS_PER_CLIENT
 *   sessions, and a full table gives way from the address holding the most.
 *   (When several tokens can be configured, the token becomes the unit.)
 *
 * @module
 */

import { isLoopbackHost } from "./host_policy.ts";

/** What the listener knows about a request's connection. */
export interface ConnectionInfo {
  /** The peer's IP address, as the listener saw it. */
  readonly remoteAddress?: string | undefined;
}

/** The unit of every local client. */
export const LOCAL_UNIT = "local";

/**
 * Names the client unit of a request.
 *
 * @param listenHost The configured `--host`.
 * @param info The connection, when the listener passed it.
 * @returns `local` on loopback; `addr:<ip>` beyond (`addr:unknown` when the
 *   listener did not say).
 */
export function clientUnitOf(listenHost: string, info: ConnectionInfo | undefined): string {
  if (isLoopbackHost(listenHost)) return LOCAL_UNIT;
  return `addr:${info?.remoteAddress ?? "unknown"}`;
}
