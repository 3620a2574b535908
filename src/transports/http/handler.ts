/**
 * The Streamable HTTP transport as a `handler(Request): Promise<Response>`,
 * testable without opening a port. Routes `/mcp` to MCP (one server per
 * session, or one per request with `--stateless`), `/healthz` and `/readyz` to
 * health answers, and refuses everything that is not safe to serve: foreign
 * `Host` or `Origin`, a missing or wrong bearer token, oversized, malformed
 * or too slow bodies, and more concurrent work than the ceilings allow.
 *
 * @module
 */

import { createEventBudget, createSessionEventStore } from "./event_store.ts";
import {
  ANSWER_WAIT_TIMEOUT_MS,
  HTTP_BODY_TIMEOUT_MS,
  HTTP_DRAIN_TIMEOUT_MS,
  HTTP_SESSION_IDLE_MS,
  MAX_ANSWER_BYTES_IN_FLIGHT,
  MAX_HTTP_BODY_BYTES,
  MAX_HTTP_BODY_READS,
  MAX_HTTP_BODY_READS_FOR_SESSIONS,
  MAX_HTTP_REQUESTS_IN_FLIGHT,
  MAX_HTTP_REQUESTS_PER_CLIENT,
  MAX_HTTP_REQUESTS_PER_SESSION,
  MAX_HTTP_SESSIONS,
  MAX_HTTP_SESSIONS_PER_CLIENT,
  MAX_HTTP_STREAMS_PER_CLIENT,
  MAX_STORED_EVENT_BYTES_EACH,
  MAX_STORED_EVENT_BYTES_TOTAL,
} from "../../caps.ts";
import type { Config } from "../../config/config.ts";
import { createAnswerBudget, createAnswerTicket, ticketAuthInfo } from "../../mcp/answer_budget.ts";
import { registerLiveServer } from "../../mcp/live_servers.ts";
import {
  isInitializeRequest,
  type McpHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "../../mcp/sdk.ts";
import type { CatalogStore } from "../../skills/catalog_store.ts";
import { createBearerCheck } from "./bearer_token.ts";
import { whenBodyEnds } from "./body_end.ts";
import { createBodyPool } from "./body_pool.ts";
import { clientUnitOf, type ConnectionInfo, LOCAL_UNIT } from "./client_unit.ts";
import { createHostPolicy } from "./host_policy.ts";
import { createInFlight } from "./in_flight.ts";
import { type JsonBody, readJsonBody } from "./read_body.ts";
import {
  healthResponse,
  isOAuthDiscoveryPath,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_PARSE_ERROR,
  JSONRPC_SERVER_ERROR,
  JSONRPC_SESSION_NOT_FOUND,
  jsonRpcErrorResponse,
  noOAuthResponse,
  retryLaterResponse,
} from "./responses.ts";
import { createSessionTable, type HttpSession } from "./sessions.ts";
import { markStandby } from "./standby.ts";
import { createStandbyShare } from "./standby_share.ts";
import { claimsModernEra, createModernRoute } from "./modern_route.ts";
import { protocolRefusal } from "./protocol_front.ts";
import { negotiatedVersion } from "../../mcp/protocol_versions.ts";

/** The path MCP is served at. */
export const MCP_PATH = "/mcp";

/** Ceilings of one handler; every field defaults to its constant in `src/caps.ts`. */
export interface HttpLimits {
  /** @default MAX_HTTP_BODY_BYTES (256 KiB) */
  readonly maxBodyBytes: number;
  /** How long a request body may take to arrive in all. @default HTTP_BODY_TIMEOUT_MS (30 s) */
  readonly bodyTimeoutMs: number;
  /** @default MAX_HTTP_REQUESTS_IN_FLIGHT (256) */
  readonly maxInFlight: number;
  /** @default MAX_HTTP_REQUESTS_PER_SESSION (32) */
  readonly maxInFlightPerSession: number;
  /** @default MAX_HTTP_SESSIONS (1024) */
  readonly maxSessions: number;
  /** Requests in flight per client unit beyond loopback. @default MAX_HTTP_REQUESTS_PER_CLIENT (64) */
  readonly maxInFlightPerClient: number;
  /**
   * Open standby streams (2025 `GET`, 2026-07-28 `subscriptions/listen`) per
   * client unit beyond loopback; at it the unit's oldest is closed for the new
   * one. @default MAX_HTTP_STREAMS_PER_CLIENT (64)
   */
  readonly maxStreamsPerClient: number;
  /** Sessions per client unit beyond loopback. @default MAX_HTTP_SESSIONS_PER_CLIENT (64) */
  readonly maxSessionsPerClient: number;
  /** Bodies read at once (a stalled one gives way). @default MAX_HTTP_BODY_READS (32) */
  readonly maxBodyReads: number;
  /** Body slots only a session's first body may take. @default MAX_HTTP_BODY_READS_FOR_SESSIONS (8) */
  readonly maxBodyReadsForSessions: number;
  /** UTF-8 bytes of stored SSE events across sessions. @default MAX_STORED_EVENT_BYTES_TOTAL (256 MiB) */
  readonly maxStoredEventBytes: number;
  /** UTF-8 bytes one stored SSE event may take. @default MAX_STORED_EVENT_BYTES_EACH (1 MiB) */
  readonly maxStoredEventBytesEach: number;
  /** Bytes of large answers in flight. @default MAX_ANSWER_BYTES_IN_FLIGHT (64 MiB) */
  readonly maxAnswerBytes: number;
  /** How long an answer waits for room. @default ANSWER_WAIT_TIMEOUT_MS (20 s) */
  readonly answerWaitMs: number;
  /** @default HTTP_SESSION_IDLE_MS (30 min) */
  readonly sessionIdleMs: number;
  /** @default HTTP_DRAIN_TIMEOUT_MS (30 s) */
  readonly drainTimeoutMs: number;
}

/** What the handler needs besides the configuration. */
export interface HttpHandlerOptions {
  /** The catalog store, or a promise of it: `/readyz` and `/mcp` answer 503 until it resolves. */
  readonly store: CatalogStore | Promise<CatalogStore>;
  /**
   * Builds the MCP server for one session (or one stateless request). The
   * worker passes `createSkillServer`; tests may pass their own.
   */
  readonly createServer: (
    store: CatalogStore,
    info: { isStateless: boolean; era?: "legacy" | "modern" },
  ) => Server;
  /** Overrides of the ceilings (tests). */
  readonly limits?: Partial<HttpLimits>;
  /** Clock for idle sessions, in ms since the epoch. @default Date.now */
  readonly nowMs?: () => number;
  /**
   * Called when a POST to the MCP endpoint is admitted (past the host,
   * origin and token checks, the catalog loaded) and again once its answer is
   * ready: the worker passes `noteClientRequest`, so background work (the
   * catch-up after the watch starts, the search index's build) gives way to
   * requests as over stdio (`src/skills/_time_slice.ts`). A GET's event
   * stream is no activity. @default none
   */
  readonly onActivity?: () => void;
}

/** The reconnection delay sent to SSE clients with each stream's priming event, in ms. */
export const SSE_RETRY_INTERVAL_MS = 1_000;

/** A handler and its lifecycle. */
export interface HttpHandler {
  /**
   * Answers one HTTP request. Never throws.
   *
   * @param request The request.
   * @param info The connection (the peer's address), which beyond loopback
   *   names the client unit; the listener passes it.
   */
  handler(request: Request, info?: ConnectionInfo): Promise<Response>;
  /**
   * Graceful shutdown: refuses new MCP requests (503), waits for those in
   * flight up to the drain timeout, runs `stopWork` (the script runner kills
   * its process groups there), then closes every session and its streams.
   *
   * @returns Whether every in-flight request finished before the deadline.
   */
  drain(options?: { stopWork?: () => Promise<void> }): Promise<boolean>;
  /**
   * Closes sessions idle for the session idle limit (no request in flight, no
   * open stream, no request for that long). `serveOverHttp` calls it on a timer.
   *
   * @returns How many sessions were closed.
   */
  closeIdleSessions(): Promise<number>;
  /**
   * Live sessions, requests in flight, bodies being read, open session
   * streams (GET), bytes of stored SSE events, and whether draining.
   */
  stats(): {
    sessions: number;
    inFlight: number;
    bodyReads: number;
    openStreams: number;
    storedEventBytes: number;
    answerBytes: number;
    isDraining: boolean;
  };
}

/**
 * Creates the handler for `config` (`--http` port, `--host`, `--stateless`,
 * `--allowed-hosts`, `--allowed-origins`, and `config.httpToken`).
 *
 * Order of checks: a present foreign `Origin` is refused everywhere (403);
 * `/healthz` and `/readyz` then answer without `Host` or token checks (they
 * reveal only liveness and readiness, and orchestrator probes address pods by
 * IP); everything else needs an accepted `Host` (403; bound beyond loopback
 * any `Host` is accepted, see `createHostPolicy`); OAuth discovery paths
 * (`/.well-known/...`, `/register`, `/authorize`, `/token`) then answer 404
 * (no OAuth here) without a token; then the bearer token when one is
 * configured (401 with `WWW-Authenticate: Bearer`). A request body
 * must arrive within the body deadline (408, and the slot is freed).
 *
 * @param config The frozen configuration; `options.http` must be a port.
 * @param options The store, the server factory, and test overrides.
 * @returns The handler.
 * @throws {TypeError} When `config.options.http` is null.
 *
 * Source: MCP 2025-11-25, "Transports" (Streamable HTTP, session management,
 * security warning); RFC 6750 (bearer tokens); RFC 9110 (408, 413, 429, 503).
 */
export function createHttpHandler(config: Config, options: HttpHandlerOptions): HttpHandler {
  const port = config.options.http;
  if (port === null) throw new TypeError("The HTTP handler needs a port (--http)");
  const limits: HttpLimits = {
    maxBodyBytes: MAX_HTTP_BODY_BYTES,
    bodyTimeoutMs: HTTP_BODY_TIMEOUT_MS,
    maxInFlight: MAX_HTTP_REQUESTS_IN_FLIGHT,
    maxInFlightPerSession: MAX_HTTP_REQUESTS_PER_SESSION,
    maxSessions: MAX_HTTP_SESSIONS,
    maxSessionsPerClient: MAX_HTTP_SESSIONS_PER_CLIENT,
    maxInFlightPerClient: MAX_HTTP_REQUESTS_PER_CLIENT,
    maxStreamsPerClient: MAX_HTTP_STREAMS_PER_CLIENT,
    maxBodyReads: MAX_HTTP_BODY_READS,
    maxBodyReadsForSessions: MAX_HTTP_BODY_READS_FOR_SESSIONS,
    maxStoredEventBytes: MAX_STORED_EVENT_BYTES_TOTAL,
    maxStoredEventBytesEach: MAX_STORED_EVENT_BYTES_EACH,
    maxAnswerBytes: MAX_ANSWER_BYTES_IN_FLIGHT,
    answerWaitMs: ANSWER_WAIT_TIMEOUT_MS,
    sessionIdleMs: HTTP_SESSION_IDLE_MS,
    drainTimeoutMs: HTTP_DRAIN_TIMEOUT_MS,
    ...options.limits,
  };
  const nowMs = options.nowMs ?? Date.now;
  const policy = createHostPolicy({
    host: config.options.host,
    port,
    allowedHosts: config.options.allowedHosts,
    allowedOrigins: config.options.allowedOrigins,
  });
  const checkToken = config.httpToken === null ? null : createBearerCheck(config.httpToken);
  const isStateless = config.options.stateless;
  /** The 2026-07-28 route (src/transports/http/modern_route.ts), made on first use. */
  let modernRoute: McpHttpHandler | null = null;
  const inFlight = createInFlight(limits.maxInFlight);
  const bodyPool = createBodyPool(limits.maxBodyReads, {
    reservedForSessions: limits.maxBodyReadsForSessions,
  });
  const eventBudget = createEventBudget({
    maxBytes: limits.maxStoredEventBytes,
    maxEventBytes: limits.maxStoredEventBytesEach,
  });
  const answerBudget = createAnswerBudget({
    maxBytes: limits.maxAnswerBytes,
    timeoutMs: limits.answerWaitMs,
  });
  const sessions = createSessionTable();
  const isLoopbackOnly = clientUnitOf(config.options.host, undefined) === LOCAL_UNIT;
  /** Requests in flight per client unit beyond loopback (entries dropped when idle). */
  const perClient = new Map<string, ReturnType<typeof createInFlight>>();
  /** A slot of `unit`'s share: a release, or null when its share is taken. */
  const enterClient = (unit: string): (() => void) | null => {
    if (isLoopbackOnly) return () => {};
    let share = perClient.get(unit);
    if (share === undefined) {
      share = createInFlight(limits.maxInFlightPerClient);
      perClient.set(unit, share);
    }
    const release = share.tryEnter();
    if (release === null) return null;
    const counter = share;
    return () => {
      release();
      if (counter.count() === 0 && perClient.get(unit) === counter) perClient.delete(unit);
    };
  };
  /**
   * Open standby streams per client unit beyond loopback, a count of their
   * own: a standby stream (either era) gives its request-share slot back when
   * it opens, so open streams never lock their unit's requests out (review
   * r16, A6); at the count only a stream of the same session gives way to
   * the new one, else the new one is refused (429): a NAT neighbour never
   * closes another client's stream (review r17, hF-2).
   */
  const standbyShare = createStandbyShare(limits.maxStreamsPerClient);
  const openStandby = (
    unit: string,
    owner: string | null,
    response: Response,
    standby: Parameters<typeof markStandby>[1],
  ): Response => {
    const counted = isLoopbackOnly ? response : standbyShare.open(unit, owner, response);
    if (counted !== null) return markStandby(counted, standby);
    return retryLaterResponse(
      429,
      `Too many standby streams: this client has ${limits.maxStreamsPerClient} open`,
      inFlight.retryAfterSeconds(),
    );
  };
  const clientBusy = () =>
    retryLaterResponse(
      429,
      `Too many requests: this client has ${limits.maxInFlightPerClient} requests in flight`,
      inFlight.retryAfterSeconds(),
    );
  let store: CatalogStore | null = null;
  Promise.resolve(options.store).then((loaded) => (store = loaded), () => {});
  let isDraining = false;
  let openStreams = 0;
  /**
   * Reads a body in the body pool (never in a request slot); counts it on its
   * session, from its wait in line on. A session's first body at once is
   * served before sessionless bodies and ended after them (rank 1). The wait
   * in line and the read share the body deadline.
   */
  const readBody = async (request: Request, session?: HttpSession): Promise<JsonBody> => {
    const rank = session !== undefined && session.bodyReads === 0 ? 1 : 0;
    if (session !== undefined) session.bodyReads++;
    const startedMs = performance.now();
    try {
      const slot = await bodyPool.enter(rank, {
        timeoutMs: limits.bodyTimeoutMs,
        signal: request.signal,
      });
      if (slot === "timed-out" || slot === "aborted") {
        await request.body?.cancel().catch(() => {});
        return slot === "aborted"
          ? { kind: "aborted" }
          : { kind: "timed-out", timeoutMs: limits.bodyTimeoutMs };
      }
      try {
        const body = await readJsonBody(request, limits.maxBodyBytes, {
          timeoutMs: Math.max(1, limits.bodyTimeoutMs - (performance.now() - startedMs)),
          signal: slot.signal,
          onProgress: slot.progress,
        });
        return body.kind === "timed-out"
          ? { kind: "timed-out", timeoutMs: limits.bodyTimeoutMs }
          : body;
      } finally {
        slot.release();
      }
    } finally {
      if (session !== undefined) session.bodyReads--;
    }
  };
  /** A 503 for a full request pool, with the pool's own estimate of when a slot frees. */
  const poolFull = () =>
    retryLaterResponse(
      503,
      "Service unavailable: too many requests in flight",
      inFlight.retryAfterSeconds(),
    );

  /**
   * A response a browser page of an admitted Origin may read: its origin in
   * `Access-Control-Allow-Origin` and the MCP headers exposed. Nothing for a
   * request without an Origin or with one not admitted (those got 403).
   * Rule source: Fetch standard, CORS protocol.
   */
  function withCors(response: Response, origin: string | null, host: string | null): Response {
    if (origin === null || !policy.isOriginAllowed(origin, host)) return response;
    const headers = {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": CORS_EXPOSED_HEADERS,
    };
    try {
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
      response.headers.append("vary", "Origin");
      return response;
    } catch {
      // Immutable headers (not ours today): copied onto a new response around the same body.
      const copy = new Headers(response.headers);
      for (const [name, value] of Object.entries(headers)) copy.set(name, value);
      copy.append("vary", "Origin");
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers: copy,
      });
    }
  }

  async function handle(request: Request, info: ConnectionInfo | undefined): Promise<Response> {
    const url = new URL(request.url);
    const host = request.headers.get("host");
    const origin = request.headers.get("origin");
    if (origin !== null && !policy.isOriginAllowed(origin, host)) {
      return jsonRpcErrorResponse(
        403,
        JSONRPC_SERVER_ERROR,
        `Forbidden: Origin "${origin}" may not use this server; the owner can allow it with --allowed-origins`,
      );
    }
    if (url.pathname === "/healthz" || url.pathname === "/readyz") return health(request, url);
    if (!policy.isHostAllowed(host)) {
      return jsonRpcErrorResponse(
        403,
        JSONRPC_SERVER_ERROR,
        `Forbidden: Host "${
          host ?? ""
        }" is not served here; the owner can allow it with --allowed-hosts`,
      );
    }
    // Review n8: OAuth discovery paths answered 401 (the token check came first), which SDK
    // clients report as a failed metadata load; a 404 says "no OAuth here", so they fall back.
    if (isOAuthDiscoveryPath(url.pathname)) return noOAuthResponse();
    // A browser's preflight carries no token: answered for an origin admitted above, and only
    // for the MCP path (review r14, H4).
    if (
      request.method === "OPTIONS" && origin !== null && url.pathname === MCP_PATH &&
      request.headers.get("access-control-request-method") !== null
    ) {
      return corsPreflightResponse(isStateless);
    }
    if (checkToken !== null) {
      const verdict = await checkToken(request.headers.get("authorization"));
      if (verdict !== "ok") {
        const challenge = verdict === "missing"
          ? 'Bearer realm="skillgate"'
          : 'Bearer realm="skillgate", error="invalid_token"';
        return jsonRpcErrorResponse(
          401,
          JSONRPC_SERVER_ERROR,
          verdict === "missing"
            ? "Unauthorized: send the server's token as Authorization: Bearer <token>"
            : "Unauthorized: the bearer token is not valid",
          { headers: { "www-authenticate": challenge } },
        );
      }
    }
    if (url.pathname !== MCP_PATH) {
      return jsonRpcErrorResponse(
        404,
        JSONRPC_SERVER_ERROR,
        `Not found: MCP is served at ${MCP_PATH}`,
      );
    }
    if (!["POST", "GET", "DELETE"].includes(request.method)) {
      return jsonRpcErrorResponse(405, JSONRPC_SERVER_ERROR, "Method not allowed", {
        headers: { allow: isStateless ? "POST" : "GET, POST, DELETE" },
      });
    }
    if (isDraining) {
      return retryLaterResponse(503, "Service unavailable: the server is shutting down");
    }
    const loaded = store;
    if (loaded === null) {
      return retryLaterResponse(503, "Service unavailable: the skill catalog is still loading");
    }
    const isActivity = request.method === "POST" && options.onActivity !== undefined;
    if (isActivity) options.onActivity!();
    try {
      if (isStateless) return await handleStateless(request, loaded, info);
      return await handleStateful(request, loaded, info);
    } finally {
      if (isActivity) options.onActivity!();
    }
  }

  function health(request: Request, url: URL): Response {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return jsonRpcErrorResponse(405, JSONRPC_SERVER_ERROR, "Method not allowed: use GET", {
        headers: { allow: "GET, HEAD" },
      });
    }
    if (url.pathname === "/healthz") return healthResponse(200, "ok");
    if (isDraining) return healthResponse(503, "draining");
    if (store === null) return healthResponse(503, "loading");
    // Busy only when a request without a session's first-request right would be refused.
    if (!inFlight.hasRoom()) {
      return healthResponse(503, "busy", { retryAfterSeconds: inFlight.retryAfterSeconds() });
    }
    return healthResponse(200, "ready");
  }

  async function handleStateless(
    request: Request,
    loaded: CatalogStore,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    if (request.method !== "POST") {
      return jsonRpcErrorResponse(
        405,
        JSONRPC_SERVER_ERROR,
        "Method not allowed: a stateless server takes POST only",
        { headers: { allow: "POST" } },
      );
    }
    const body = await readBody(request);
    if (body.kind !== "json") return bodyRefusal(body);
    if (await claimsModernEra(request, body.value)) {
      return await handleModern(request, body.value, loaded, info);
    }
    const refused = protocolRefusal(request, body.value);
    if (refused !== null) return refused;
    const unit = clientUnitOf(config.options.host, info);
    const releaseClient = enterClient(unit);
    if (releaseClient === null) return clientBusy();
    const release = inFlight.tryEnter();
    if (release === null) {
      releaseClient();
      return poolFull();
    }
    let server: Server | null = null;
    const ticket = createAnswerTicket(answerBudget);
    const finish = () => {
      release();
      releaseClient();
      ticket.releaseAll();
      server?.close().catch(() => {});
    };
    try {
      server = options.createServer(loaded, { isStateless: true });
      // No sessionIdGenerator: the SDK's stateless mode (no Mcp-Session-Id).
      const transport = new WebStandardStreamableHTTPServerTransport({});
      await server.connect(transport);
      const response = await transport.handleRequest(request, {
        parsedBody: body.value,
        authInfo: ticketAuthInfo(ticket),
      });
      return whenBodyEnds(response, finish);
    } catch (error) {
      finish();
      return internalError(error);
    }
  }

  async function handleStateful(
    request: Request,
    loaded: CatalogStore,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) {
      if (request.method !== "POST") {
        return jsonRpcErrorResponse(
          400,
          JSONRPC_SERVER_ERROR,
          "Bad Request: Mcp-Session-Id header is required",
        );
      }
      return await openSession(request, loaded, info);
    }
    const session = sessions.get(sessionId);
    if (session === undefined) {
      return jsonRpcErrorResponse(404, JSONRPC_SESSION_NOT_FOUND, "Session not found");
    }
    sessions.touch(session);
    session.lastActiveMs = nowMs();
    let parsedBody: unknown = undefined;
    if (request.method === "POST") {
      const body = await readBody(request, session);
      if (body.kind !== "json") return bodyRefusal(body);
      parsedBody = body.value;
      if (!isInitializedNotice(parsedBody)) session.requests++;
    }
    const refused = protocolRefusal(request, parsedBody, session.protocolVersion);
    if (refused !== null) return refused;
    // A session with nothing in flight may always start one request: the
    // pool's ceiling binds only sessions that already have work in flight,
    // so a flood of busy sessions cannot starve a client that asks one thing
    // at a time (sessions are bounded, so this overdraw is too).
    const releaseClient = enterClient(session.unit);
    if (releaseClient === null) return clientBusy();
    const release = session.inFlight.count() === 0 ? inFlight.enter() : inFlight.tryEnter();
    if (release === null) {
      releaseClient();
      return poolFull();
    }
    const releaseSession = session.inFlight.tryEnter();
    if (releaseSession === null) {
      release();
      releaseClient();
      return retryLaterResponse(
        429,
        "Too many requests: this session has too many in flight",
        inFlight.retryAfterSeconds(),
      );
    }
    // Large answers of this request hold their bytes until its response body
    // ends; waiting for room, this session takes turns with the others.
    const ticket = createAnswerTicket(answerBudget, session.id);
    const finish = () => {
      releaseSession();
      release();
      releaseClient();
      ticket.releaseAll();
      session.lastActiveMs = nowMs();
    };
    try {
      let response: Response;
      if (request.method === "POST") {
        response = await session.transport.handleRequest(request, {
          parsedBody,
          authInfo: ticketAuthInfo(ticket),
        });
      } else {
        response = await session.transport.handleRequest(request);
      }
      if (request.method === "GET" && response.ok && response.body !== null) {
        // The standalone stream lives as long as the client listens: it holds
        // the session open but is not a request in flight.
        finish();
        session.openStreams++;
        openStreams++;
        // A standby stream: at the connection cap it gives way to a newcomer
        // (least recently active first: its session's last request, or the last event
        // the stream carried, whichever is later); the client opens it again.
        let lastSentMs = Number.NEGATIVE_INFINITY;
        return openStandby(
          session.unit,
          session.id,
          whenBodyEnds(response, () => {
            session.openStreams--;
            openStreams--;
            session.lastActiveMs = nowMs();
          }, { onSent: () => void (lastSentMs = nowMs()) }),
          { lastActiveMs: () => Math.max(session.lastActiveMs, lastSentMs) },
        );
      }
      return whenBodyEnds(response, finish);
    } catch (error) {
      finish();
      return internalError(error);
    }
  }

  /**
   * Serves one 2026-07-28 request through the SDK's stateless handler, under
   * the same admission as any request: the client's share, the in-flight
   * pool and the answer budget (released when the response body ends).
   */
  /** Whether a parsed body is one `subscriptions/listen` request. */
  function isListenRequest(body: unknown): boolean {
    return typeof body === "object" && body !== null && !Array.isArray(body) &&
      (body as { method?: unknown }).method === "subscriptions/listen";
  }

  async function handleModern(
    request: Request,
    parsedBody: unknown,
    loaded: CatalogStore,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const unit = clientUnitOf(config.options.host, info);
    const releaseClient = enterClient(unit);
    if (releaseClient === null) return clientBusy();
    const release = inFlight.tryEnter();
    if (release === null) {
      releaseClient();
      return poolFull();
    }
    const ticket = createAnswerTicket(answerBudget);
    const finish = () => {
      release();
      releaseClient();
      ticket.releaseAll();
    };
    try {
      modernRoute ??= createModernRoute(
        () => options.createServer(loaded, { isStateless: false, era: "modern" }),
        { maxBodyBytes: limits.maxBodyBytes, maxSubscriptions: limits.maxSessions },
      );
      const response = await modernRoute.fetch(request, {
        parsedBody,
        authInfo: ticketAuthInfo(ticket),
      });
      if (isListenRequest(parsedBody) && response.ok && response.body !== null) {
        // A listen stream lives as long as the client listens: like the 2025 GET
        // stream it is not a request in flight, so it gives back its pool slot and
        // its slot of the client's request share (review r16, A6: 64 open streams
        // kept every request of their address at 429). The client's open standby
        // streams have a count of their own (openStandby), and the SDK caps
        // subscriptions at the session cap (modern_route.ts).
        finish();
        openStreams++;
        // A standby stream too (no session: its activity is its opening, or the last
        // event it carried); at the connection cap it gives way, and the client listens again.
        const openedMs = nowMs();
        let lastSentMs = Number.NEGATIVE_INFINITY;
        return openStandby(
          unit,
          null,
          whenBodyEnds(response, () => openStreams--, {
            onSent: () => void (lastSentMs = nowMs()),
          }),
          { lastActiveMs: () => Math.max(openedMs, lastSentMs) },
        );
      }
      return whenBodyEnds(response, finish);
    } catch (error) {
      finish();
      return internalError(error);
    }
  }

  async function openSession(
    request: Request,
    loaded: CatalogStore,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const body = await readBody(request);
    if (body.kind !== "json") return bodyRefusal(body);
    if (await claimsModernEra(request, body.value)) {
      return await handleModern(request, body.value, loaded, info);
    }
    const unit = clientUnitOf(config.options.host, info);
    const isInitialize = Array.isArray(body.value)
      ? body.value.some((message) => isInitializeRequest(message))
      : isInitializeRequest(body.value);
    if (!isInitialize) {
      return jsonRpcErrorResponse(
        400,
        JSONRPC_SERVER_ERROR,
        "Bad Request: Mcp-Session-Id header is required",
      );
    }
    const refused = protocolRefusal(request, body.value);
    if (refused !== null) return refused;
    const initialize = (Array.isArray(body.value) ? body.value : [body.value])
      .find((message) => isInitializeRequest(message)) as
        | { params?: { protocolVersion?: unknown } }
        | undefined;
    const protocolVersion = negotiatedVersion(initialize?.params?.protocolVersion);
    const refusal = await sessions.makeRoom(unit, {
      maxSessions: limits.maxSessions,
      maxPerUnit: isLoopbackOnly ? Number.POSITIVE_INFINITY : limits.maxSessionsPerClient,
    });
    if (refusal !== null) {
      return retryLaterResponse(
        refusal === "unit-busy" ? 429 : 503,
        refusal === "unit-busy"
          ? `Too many requests: this client's ${limits.maxSessionsPerClient} sessions are all busy`
          : "Service unavailable: every session is busy",
        inFlight.retryAfterSeconds(),
      );
    }
    // Initialize is cheap and always admitted (a new client is never locked out).
    const release = inFlight.enter();
    let server: Server | null = null;
    try {
      const created = options.createServer(loaded, { isStateless: false });
      server = created;
      const perSession = createInFlight(limits.maxInFlightPerSession);
      const eventStore = createSessionEventStore(eventBudget);
      let forget = () => eventStore.dispose();
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          eventStore,
          retryInterval: SSE_RETRY_INTERVAL_MS,
          onsessioninitialized: (id) => {
            sessions.add({
              id,
              unit,
              server: created,
              transport,
              protocolVersion,
              inFlight: perSession,
              bodyReads: 0,
              requests: 0,
              openStreams: 0,
              lastActiveMs: nowMs(),
            });
            const unregister = registerLiveServer(created, {
              transport: "http-session",
              sessionId: id,
            });
            forget = () => {
              sessions.remove(id);
              unregister();
              eventStore.dispose();
            };
          },
        });
      // Set before connect(): the server chains its own close handling after ours.
      transport.onclose = () => forget();
      await created.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: body.value });
      if (transport.sessionId === undefined) {
        release();
        await created.close().catch(() => {});
        return response;
      }
      return whenBodyEnds(response, release);
    } catch (error) {
      release();
      await server?.close().catch(() => {});
      return internalError(error);
    }
  }

  return {
    handler: async (request, info) => {
      let response: Response;
      try {
        response = await handle(request, info);
      } catch (error) {
        response = internalError(error);
      }
      return withCors(response, request.headers.get("origin"), request.headers.get("host"));
    },
    drain: async ({ stopWork } = {}) => {
      isDraining = true;
      const isIdle = await inFlight.idle(limits.drainTimeoutMs);
      await stopWork?.();
      await sessions.closeAll();
      await modernRoute?.close();
      return isIdle;
    },
    closeIdleSessions: () => sessions.closeIdle(nowMs(), limits.sessionIdleMs),
    stats: () => ({
      sessions: sessions.size(),
      inFlight: inFlight.count(),
      bodyReads: bodyPool.count(),
      openStreams,
      storedEventBytes: eventBudget.usedBytes(),
      answerBytes: answerBudget.usedBytes(),
      isDraining,
    }),
  };
}

function bodyRefusal(body: Exclude<JsonBody, { kind: "json" }>): Response {
  if (body.kind === "evicted") {
    return jsonRpcErrorResponse(
      408,
      JSONRPC_SERVER_ERROR,
      "Request timeout: the request body stalled while other bodies waited to be read; send it again",
      { headers: { connection: "close" } },
    );
  }
  if (body.kind === "aborted") {
    // The connection is gone (client left, or shutdown cut it): this answer reaches no one.
    return jsonRpcErrorResponse(
      400,
      JSONRPC_SERVER_ERROR,
      "Bad Request: the request body ended before it was complete",
      { headers: { connection: "close" } },
    );
  }
  if (body.kind === "timed-out") {
    return jsonRpcErrorResponse(
      408,
      JSONRPC_SERVER_ERROR,
      `Request timeout: the request body did not arrive within ${body.timeoutMs} ms`,
      { headers: { connection: "close" } },
    );
  }
  if (body.kind === "too-large") {
    return jsonRpcErrorResponse(
      413,
      JSONRPC_SERVER_ERROR,
      `Payload too large: a request body may hold at most ${body.maxBytes} bytes`,
    );
  }
  return jsonRpcErrorResponse(400, JSONRPC_PARSE_ERROR, body.reason);
}

/** Whether a body is only the `notifications/initialized` every client sends after `initialize`. */
function isInitializedNotice(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) &&
    (body as { method?: unknown }).method === "notifications/initialized";
}

function internalError(error: unknown): Response {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`skillgate: HTTP request failed: ${message}`);
  return jsonRpcErrorResponse(500, JSONRPC_INTERNAL_ERROR, "Internal error");
}

/** The headers a browser page may read from an answer (the session and protocol version). */
const CORS_EXPOSED_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";

/**
 * The answer to a CORS preflight of the MCP path from an admitted Origin
 * (the caller checked it): the methods served and the request headers an MCP
 * client sends. `Access-Control-Allow-Origin` is added with every answer.
 *
 * @param isStateless POST only when stateless.
 * @returns 204 with the CORS grant, cached by the browser for 10 minutes.
 *
 * Rule source: Fetch standard, CORS protocol; MCP Streamable HTTP (the
 * `Mcp-Session-Id`, `MCP-Protocol-Version` and `Last-Event-ID` headers).
 */
export function corsPreflightResponse(isStateless: boolean): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-methods": isStateless ? "POST" : "GET, POST, DELETE",
      "access-control-allow-headers":
        "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id",
      "access-control-max-age": "600",
    },
  });
}
