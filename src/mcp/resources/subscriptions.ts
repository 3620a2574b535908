/**
 * Resource subscriptions, per server (one server per client session). The
 * resources family records `resources/subscribe` and `resources/unsubscribe`
 * here; live refresh reads {@linkcode subscriptionsOf} after a catalog swap
 * and sends `notifications/resources/updated` with `server.sendResourceUpdated({uri})`
 * for each subscribed URI whose file changed or went away.
 *
 * URIs are stored in canonical form (`skillFileUri(name, path)`, the form
 * `resources/list` shows), so a refresh can build the URI of a changed file
 * and test membership directly. Keys are held weakly: a closed server's
 * subscriptions go with it. A server can only subscribe to URIs the catalog
 * served at the time, so a set never outgrows the catalog.
 *
 * @module
 */

import { MAX_SUBSCRIPTIONS_PER_SESSION } from "../../caps.ts";
import { ProtocolError, ProtocolErrorCode, type Server } from "../sdk.ts";

const byServer = new WeakMap<Server, Set<string>>();

/**
 * Records that `server`'s client subscribed to `uri`. Idempotent.
 *
 * @param server The server of the session.
 * @param uri The canonical URI.
 * @param maxSubscriptions Subscriptions the session may hold. @default
 *   MAX_SUBSCRIPTIONS_PER_SESSION (1,024)
 * @throws {ProtocolError} -32602 when the session already holds
 *   `maxSubscriptions` others.
 *
 * Source: MCP 2025-11-25, "Resources", subscriptions.
 */
export function addSubscription(
  server: Server,
  uri: string,
  maxSubscriptions: number = MAX_SUBSCRIPTIONS_PER_SESSION,
): void {
  let uris = byServer.get(server);
  if (uris === undefined) {
    uris = new Set();
    byServer.set(server, uris);
  }
  if (!uris.has(uri) && uris.size >= maxSubscriptions) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `A session may hold at most ${maxSubscriptions} resource subscriptions; unsubscribe from ` +
        "some first",
    );
  }
  uris.add(uri);
}

/**
 * Forgets a subscription. Idempotent: forgetting one that was never made is
 * not an error.
 *
 * @param server The server of the session.
 * @param uri The canonical URI.
 * @returns Whether the subscription existed.
 */
export function removeSubscription(server: Server, uri: string): boolean {
  return byServer.get(server)?.delete(uri) ?? false;
}

/**
 * The URIs `server`'s client is subscribed to.
 *
 * @param server The server of the session.
 * @returns A snapshot (a new set; later changes do not show in it), empty
 *   when the client subscribed to nothing.
 */
export function subscriptionsOf(server: Server): ReadonlySet<string> {
  return new Set(byServer.get(server));
}
