/**
 * The registry of MCP servers connected to a client right now: the one stdio
 * server, or one server per live HTTP session. Whatever must reach every
 * connected client (live refresh's `list_changed`, `resources/updated`)
 * iterates them with {@linkcode forEachLiveServer}. Stateless HTTP servers
 * live for one request and are never registered: nobody could receive a
 * notification.
 *
 * @module
 */

import type { Server } from "./sdk.ts";

/** How a live server reaches its client. */
export type LiveTransport = "stdio" | "http-session" | "in-memory";

/** One registered server. */
export interface LiveServer {
  readonly server: Server;
  readonly transport: LiveTransport;
  /** The HTTP session id (`Mcp-Session-Id`), or null off HTTP. */
  readonly sessionId: string | null;
}

const registry = new Set<LiveServer>();

/**
 * Registers a connected server until its connection closes: the entry is
 * removed when the server's `onclose` fires (an `onclose` set before is still
 * called) or when the returned function is called, whichever comes first.
 *
 * @param server A server connected (or about to be) to its transport.
 * @param options How it is connected (default `stdio`) and its HTTP session id.
 * @returns A function that removes the entry; calling it twice is harmless.
 */
export function registerLiveServer(
  server: Server,
  options: { transport?: LiveTransport; sessionId?: string } = {},
): () => void {
  const entry: LiveServer = Object.freeze({
    server,
    transport: options.transport ?? "stdio",
    sessionId: options.sessionId ?? null,
  });
  registry.add(entry);
  const unregister = () => {
    registry.delete(entry);
  };
  const previous = server.onclose;
  server.onclose = () => {
    unregister();
    previous?.();
  };
  return unregister;
}

/**
 * Calls `callback` for each server connected right now, in registration
 * order, over a snapshot (a server that registers or closes meanwhile does
 * not disturb the iteration). A callback that throws stops nothing: the error
 * is logged to stderr and the next server is visited.
 *
 * @param callback Receives each server and its entry.
 */
export function forEachLiveServer(callback: (server: Server, entry: LiveServer) => void): void {
  for (const entry of [...registry]) {
    try {
      callback(entry.server, entry);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(`skillgate: notifying a live server failed: ${message}`);
    }
  }
}

/**
 * The servers connected right now, in registration order.
 *
 * @returns A new array of entries (a snapshot).
 */
export function liveServers(): LiveServer[] {
  return [...registry];
}

/** What a modern-era endpoint needs to hear of a catalog change (the SDK's `ServerNotifier`). */
export interface LiveNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

const notifiers = new Set<LiveNotifier>();

/**
 * Registers a notifier (a 2026-07-28 endpoint's event bus) that live refresh
 * tells of every change; its `subscriptions/listen` streams deliver them.
 *
 * @param notifier The SDK handler's `notify`.
 * @returns A function that unregisters it.
 */
export function registerLiveNotifier(notifier: LiveNotifier): () => void {
  notifiers.add(notifier);
  return () => {
    notifiers.delete(notifier);
  };
}

/**
 * The registered notifiers, a snapshot.
 *
 * @returns Every notifier registered now.
 */
export function liveNotifiers(): LiveNotifier[] {
  return [...notifiers];
}
