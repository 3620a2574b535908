/**
 * The HTTP listener: `Deno.serve` on exactly the configured address, in front
 * of {@linkcode createHttpHandler}, with a graceful shutdown. Runs inside the
 * worker, whose only net permission is this address.
 *
 * @module
 */

import type { Config } from "../../config/config.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./handler.ts";
import { listenAddressOf, mcpUrlOf } from "./http_startup.ts";

/** How often idle sessions (see `HTTP_SESSION_IDLE_MS`) are closed, in ms. */
export const IDLE_SWEEP_INTERVAL_MS = 60_000;

/** Options of {@linkcode serveOverHttp}: the handler's, plus the lifecycle. */
export interface ServeOverHttpOptions extends HttpHandlerOptions {
  /** Aborting it starts the graceful shutdown (the worker aborts on a "shutdown" message). */
  readonly signal?: AbortSignal;
  /**
   * Runs once in-flight requests finished or the drain deadline passed, before
   * sessions close. The script runner kills its running process groups here.
   */
  readonly stopWork?: () => Promise<void>;
}

/** A running listener. */
export interface HttpService {
  readonly handler: HttpHandler;
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Graceful shutdown (idempotent): drain, close sessions, stop listening. */
  shutdown(): Promise<void>;
  /** Resolves once the listener has stopped. */
  readonly finished: Promise<void>;
}

/**
 * Listens on `config.options.host`:`config.options.http` and serves the
 * handler. The listener is up (and `/healthz` answers) before the catalog
 * store resolves; `/readyz` turns 200 when it does.
 *
 * @param config The configuration, after the trusted part settled the token.
 * @param options Store, server factory, shutdown signal and hook.
 * @returns The running service.
 * @throws {Error} When the address cannot be bound (in use, not permitted),
 *   with the address in the message.
 *
 * Requires `--allow-net=<host>:<port>` for exactly that address.
 */
export function serveOverHttp(config: Config, options: ServeOverHttpOptions): HttpService {
  const address = listenAddressOf(config);
  if (address === null) throw new TypeError("serveOverHttp needs --http");
  const handler = createHttpHandler(config, options);
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: address.host,
      port: address.port,
      onListen: () => {},
      onError: (error) => {
        const message = error instanceof Error ? error.message : String(error);
        console.error(`skillgate: HTTP error: ${message}`);
        return new Response("Internal error", { status: 500 });
      },
    }, (request, info) => handler.handler(request, { remoteAddress: info.remoteAddr.hostname }));
  } catch (error) {
    const why = error instanceof Deno.errors.AddrInUse
      ? "the address is in use"
      : error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? "the worker may not listen there"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new Error(`Cannot listen on ${address.host} port ${address.port}: ${why}`);
  }
  const sweep = setInterval(() => {
    handler.closeIdleSessions().catch((error: unknown) => {
      console.error(`skillgate: closing idle sessions failed: ${String(error)}`);
    });
  }, IDLE_SWEEP_INTERVAL_MS);
  let shutting: Promise<void> | null = null;
  const shutdown = () => {
    shutting ??= (async () => {
      clearInterval(sweep);
      const stopped = server.shutdown();
      const stopWork = options.stopWork;
      await handler.drain(stopWork === undefined ? {} : { stopWork });
      await stopped;
    })();
    return shutting;
  };
  options.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  if (options.signal?.aborted === true) void shutdown();
  return { handler, url: mcpUrlOf(address), shutdown, finished: server.finished };
}
