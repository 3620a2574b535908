/**
 * The HTTP listener: node:http's server (request parsing, header and request
 * timeouts, keep-alive) fed by skillgate's own accept loop
 * (`connections.ts`: a connection cap, and accept errors such as `EMFILE`
 * survived), in front of {@linkcode createHttpHandler}, with a graceful
 * shutdown that ends in bounded time. Runs inside the worker, whose only net
 * permission is this address.
 *
 * Why node:http and not `Deno.serve`: `Deno.serve` has no header timeout, no
 * idle timeout, no connection cap and exits the process on `EMFILE`; Deno's
 * node:http port has the first three (`headersTimeout`, `requestTimeout`,
 * `keepAliveTimeout`) and parses with llhttp, as Node does. Its own listener
 * is not used: under Deno 2.9.6 it stops accepting for good after one
 * `EMFILE`, so connections come from `Deno.listen` through
 * {@linkcode acceptConnections}.
 *
 * @module
 */

import { Server as NodeHttpServer, type ServerOptions } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  HTTP_ACCEPT_BACKOFF_MAX_MS,
  HTTP_ACCEPT_BACKOFF_MIN_MS,
  HTTP_CONNECTION_CHECK_INTERVAL_MS,
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_IDLE_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_WRITE_STALL_TIMEOUT_MS,
  MAX_HTTP_CONNECTIONS,
  MAX_HTTP_HEADER_BYTES,
} from "../../caps.ts";
import type { Config } from "../../config/config.ts";
import type { ConnSocket } from "./conn_socket.ts";
import { acceptConnections, type Connections, type ConnectionStats } from "./connections.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./handler.ts";
import { urlHost } from "./host_policy.ts";
import { listenAddressOf, mcpUrlOf } from "./http_startup.ts";
import { answerNodeRequest } from "./node_bridge.ts";
import { standbyOf } from "./standby.ts";

/** How often idle sessions (see `HTTP_SESSION_IDLE_MS`) are closed, in ms. */
export const IDLE_SWEEP_INTERVAL_MS = 60_000;

/**
 * The `name` of the error {@linkcode serveOverHttp} throws when the address is
 * in use or not on this machine: the worker then exits with the usage code (2).
 */
export const LISTEN_REFUSED = "ListenRefused";

/** Connection-level limits; every field defaults to its constant in `src/caps.ts`. */
export interface ConnectionSettings {
  /** @default MAX_HTTP_CONNECTIONS (1024) */
  readonly maxConnections: number;
  /** @default HTTP_HEADERS_TIMEOUT_MS (10 s) */
  readonly headersTimeoutMs: number;
  /** @default HTTP_REQUEST_TIMEOUT_MS (40 s) */
  readonly requestTimeoutMs: number;
  /** @default HTTP_KEEP_ALIVE_IDLE_MS (5 s) */
  readonly keepAliveIdleMs: number;
  /** @default HTTP_CONNECTION_CHECK_INTERVAL_MS (1 s) */
  readonly checkIntervalMs: number;
  /** @default MAX_HTTP_HEADER_BYTES (16 KiB) */
  readonly maxHeaderBytes: number;
  /** @default HTTP_ACCEPT_BACKOFF_MIN_MS (5 ms) */
  readonly acceptBackoffMinMs: number;
  /** @default HTTP_ACCEPT_BACKOFF_MAX_MS (1 s) */
  readonly acceptBackoffMaxMs: number;
  /**
   * How long bytes of an answer may wait to be written with no progress
   * before the connection is closed (the client stopped reading), in ms.
   * @default HTTP_WRITE_STALL_TIMEOUT_MS (30 s)
   */
  readonly writeStallMs: number;
}

/** Options of {@linkcode serveOverHttp}: the handler's, plus the lifecycle. */
export interface ServeOverHttpOptions extends HttpHandlerOptions {
  /** Aborting it starts the graceful shutdown (the worker aborts on a "shutdown" message). */
  readonly signal?: AbortSignal;
  /**
   * Runs once in-flight requests finished or the drain deadline passed, before
   * sessions close. The script runner kills its running process groups here.
   */
  readonly stopWork?: () => Promise<void>;
  /** Overrides of the connection limits (tests). */
  readonly connections?: Partial<ConnectionSettings>;
  /** Where operational lines go. @default console.error with a `skillgate: ` prefix */
  readonly log?: (line: string) => void;
}

/** A running listener. */
export interface HttpService {
  readonly handler: HttpHandler;
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** The port listened on (the configured one; useful when it was 0). */
  readonly port: number;
  /**
   * Graceful shutdown (idempotent): stop accepting, close idle connections
   * and those whose request body is still arriving, drain in-flight requests
   * up to the drain deadline, close sessions, then close every connection
   * left.
   */
  shutdown(): Promise<void>;
  /** Open connections and what the accept loop did so far. */
  connectionStats(): ConnectionStats;
  /** Resolves once the shutdown has finished. */
  readonly finished: Promise<void>;
}

/**
 * Listens on `config.options.host`:`config.options.http` and serves the
 * handler. The listener is up (and `/healthz` answers) before the catalog
 * store resolves; `/readyz` turns 200 when it does.
 *
 * @param config The configuration, after the trusted part settled the token.
 * @param options Store, server factory, shutdown signal and hook, limits.
 * @returns The running service.
 * @throws {Error} When the address cannot be bound (in use, not permitted),
 *   with the address in the message; named {@linkcode LISTEN_REFUSED} when the
 *   address is in use or not on this machine (a setting to change).
 *
 * Requires `--allow-net=<host>:<port>` for exactly that address.
 */
export function serveOverHttp(config: Config, options: ServeOverHttpOptions): HttpService {
  const address = listenAddressOf(config);
  if (address === null) throw new TypeError("serveOverHttp needs --http");
  const settings: ConnectionSettings = {
    maxConnections: MAX_HTTP_CONNECTIONS,
    headersTimeoutMs: HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: HTTP_REQUEST_TIMEOUT_MS,
    keepAliveIdleMs: HTTP_KEEP_ALIVE_IDLE_MS,
    checkIntervalMs: HTTP_CONNECTION_CHECK_INTERVAL_MS,
    maxHeaderBytes: MAX_HTTP_HEADER_BYTES,
    acceptBackoffMinMs: HTTP_ACCEPT_BACKOFF_MIN_MS,
    acceptBackoffMaxMs: HTTP_ACCEPT_BACKOFF_MAX_MS,
    writeStallMs: HTTP_WRITE_STALL_TIMEOUT_MS,
    ...options.connections,
  };
  const log = options.log ?? ((line: string) => console.error(`skillgate: ${line}`));
  const handler = createHttpHandler(config, options);
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname: address.host, port: address.port, transport: "tcp" });
  } catch (error) {
    const isInUse = error instanceof Deno.errors.AddrInUse;
    const why = isInUse
      ? "the address is in use (another program, perhaps another skillgate, listens there: " +
        "stop it, or pick another port with --http=PORT)"
      : error instanceof Deno.errors.AddrNotAvailable
      ? "this machine has no such address (check --host)"
      : error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? "the worker may not listen there"
      : error instanceof Error
      ? error.message
      : String(error);
    const refused = new Error(`Cannot listen on ${address.host} port ${address.port}: ${why}`);
    // A setting to change, not a fault of skillgate's: the worker exits with the usage code.
    if (isInUse || error instanceof Deno.errors.AddrNotAvailable) refused.name = LISTEN_REFUSED;
    throw refused;
  }
  const port = (listener.addr as Deno.NetAddr).port;
  const origin = `http://${urlHost(address.host)}:${port}`;
  const serverOptions: ServerOptions & { connectionsCheckingInterval: number } = {
    headersTimeout: settings.headersTimeoutMs,
    // node:http requires requestTimeout >= headersTimeout (the headers are part of the request).
    requestTimeout: Math.max(settings.requestTimeoutMs, settings.headersTimeoutMs),
    keepAliveTimeout: settings.keepAliveIdleMs,
    connectionsCheckingInterval: settings.checkIntervalMs,
    maxHeaderSize: settings.maxHeaderBytes,
  };
  const server = new NodeHttpServer(serverOptions);
  let isAccepting = true;
  // node:http keeps a connection alive after an answer only while its server is listening,
  // and arms its header/request timeout checks on `listening`: both follow our accept loop.
  Object.defineProperty(server, "listening", { get: () => isAccepting });
  /** Requests in progress and their connection (to cut unfinished bodies at shutdown). */
  const inProgress = new Map<IncomingMessage, ConnSocket>();
  let connections: Connections | null = null;
  // Last resort: a throw out of a node event handler would end the worker (every client's
  // service), so a fault while answering one request costs only that request's connection.
  const failConnection = (socket: { destroy(): unknown } | null, error: unknown) => {
    log(`HTTP answer failed: ${error instanceof Error ? error.message : String(error)}`);
    try {
      socket?.destroy();
    } catch { /* already gone */ }
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    try {
      const socket = req.socket as unknown as ConnSocket;
      inProgress.set(req, socket);
      connections?.requestStarted(socket, () => req.complete);
      res.once("close", () => {
        inProgress.delete(req);
        connections?.requestEnded(socket);
      });
      answerNodeRequest(
        req,
        res,
        async (request) => {
          const response = await handler.handler(request, {
            remoteAddress: req.socket.remoteAddress ?? "",
          });
          // A standby stream (no work in progress) may give way to a newcomer at the cap.
          const standby = standbyOf(response);
          if (standby !== undefined) connections?.requestIsStandby(socket, standby.lastActiveMs);
          return response;
        },
        { origin },
      ).catch((error: unknown) => failConnection(res, error));
    } catch (error) {
      failConnection(req.socket, error);
    }
  });
  connections = acceptConnections(listener, settings, {
    onSocket: (socket) => {
      // As Node's own server does (its `noDelay` option, on by default): an SSE answer goes out
      // as its head and then its events, and with Nagle the second write waited for the
      // client's delayed ACK: every answer took 40 ms more (measured: ping 44 ms, 3 ms without).
      socket.setNoDelay(true);
      // An answer the client stopped reading must not hold its reservation for ever.
      socket.setWriteStallTimeout(settings.writeStallMs);
      server.emit("connection", socket);
    },
    log,
  });
  // Starts node:http's header/request timeout checks (it arms them on `listening`).
  server.emit("listening");
  const sweep = setInterval(() => {
    handler.closeIdleSessions().catch((error: unknown) => {
      log(`closing idle sessions failed: ${String(error)}`);
    });
  }, IDLE_SWEEP_INTERVAL_MS);
  const { promise: finished, resolve: resolveFinished } = Promise.withResolvers<void>();
  let shutting: Promise<void> | null = null;
  const open = connections;
  const shutdown = () => {
    shutting ??= (async () => {
      clearInterval(sweep);
      isAccepting = false; // from now on node:http closes a connection after its answer
      open.stopAccepting();
      open.closeIdle();
      // A body still arriving means no work has started: cut it rather than wait for it.
      for (const [req, socket] of inProgress) if (!req.complete) socket.destroy();
      const stopWork = options.stopWork;
      await handler.drain(stopWork === undefined ? {} : { stopWork });
      open.closeAll();
      // Clears node:http's timeout checks; it is not listening itself, so the error is expected.
      server.close(() => {});
      await open.stopped;
      resolveFinished();
    })();
    return shutting;
  };
  options.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  if (options.signal?.aborted === true) void shutdown();
  return {
    handler,
    url: mcpUrlOf({ host: address.host, port }),
    port,
    shutdown,
    connectionStats: () => open.stats(),
    finished,
  };
}
