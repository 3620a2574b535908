/**
 * Review r16, A6: beyond loopback a standby stream (a 2026-07-28
 * `subscriptions/listen` stream, a 2025 session `GET` stream) holds no slot
 * of its address's request share; open standby streams are bounded per
 * address by a count of their own (`MAX_HTTP_STREAMS_PER_CLIENT`, 64).
 * Review r17, hF-2: an address may be several clients behind one NAT, so at
 * the count a new stream is refused (429) unless its own session holds one
 * to give way; no client's open stream is closed for another's. One rule
 * for both eras (a listen stream has no session: refused at the count).
 */

import assert from "node:assert/strict";
import { MAX_HTTP_STREAMS_PER_CLIENT } from "../../src/caps.ts";
import type { HttpHandler } from "../../src/transports/http/handler.ts";
import {
  httpConfig,
  INITIALIZE,
  POST_HEADERS,
  TEST_PORT,
  TEST_TOKEN,
  testHandler,
} from "./_http.ts";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A request from `address` with the token, on the MCP path. */
function from(
  http: HttpHandler,
  address: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Response> {
  const request = new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: init.method,
    headers: {
      host: `127.0.0.1:${TEST_PORT}`,
      authorization: `Bearer ${TEST_TOKEN}`,
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  return http.handler(request, { remoteAddress: address });
}

/** Asks for one 2026-07-28 listen stream from `address` (its answer, any body still open). */
function askListen(http: HttpHandler, address: string, id: number): Promise<Response> {
  return from(http, address, {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: MODERN_META },
    }),
  });
}

/** Opens one 2026-07-28 listen stream from `address` (its answer, still open). */
async function listen(http: HttpHandler, address: string, id: number): Promise<Response> {
  const response = await askListen(http, address, id);
  assert.equal(response.status, 200, `listen ${id} from ${address}`);
  return response;
}

/** Asks for one more listen stream from `address`: its status (its body cancelled). */
async function listenStatus(http: HttpHandler, address: string, id: number): Promise<number> {
  const response = await askListen(http, address, id);
  await response.body?.cancel();
  return response.status;
}

/** A 2026-07-28 `server/discover` from `address`: its status. */
async function discover(http: HttpHandler, address: string): Promise<number> {
  const response = await from(http, address, {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 900,
      method: "server/discover",
      params: { _meta: MODERN_META },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

const beyondLoopback = () => httpConfig(["--host=0.0.0.0"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });

Deno.test("attack (r17 hF-2): at an address's stream count, a new listen stream from behind the same address is refused (429) and closes none of the open; another address's stream and that address's requests are untouched", async () => {
  await using h = await testHandler(beyondLoopback());
  const open: Response[] = [];
  try {
    const other = await listen(h.http, "192.0.2.1", 1);
    open.push(other);
    const mine: Response[] = [];
    for (let index = 0; index < MAX_HTTP_STREAMS_PER_CLIENT; index++) {
      mine.push(await listen(h.http, "198.51.100.7", 10 + index));
    }
    open.push(...mine);
    assert.equal(h.http.stats().openStreams, MAX_HTTP_STREAMS_PER_CLIENT + 1);
    // 64 open streams hold no slot of the address's request share.
    assert.equal(await discover(h.http, "198.51.100.7"), 200, "its requests are served");
    const refused = await listenStatus(h.http, "198.51.100.7", 999);
    assert.equal(refused, 429, "the newcomer is refused");
    assert.equal(
      h.http.stats().openStreams,
      MAX_HTTP_STREAMS_PER_CLIENT + 1,
      "every open stream stays open, that address's and the other's",
    );
    assert.equal(await discover(h.http, "192.0.2.1"), 200);
    assert.equal(await discover(h.http, "198.51.100.7"), 200);
  } finally {
    for (const response of open) await response.body?.cancel().catch(() => {});
  }
  assert.equal(h.http.stats().openStreams, 0);
});

Deno.test("attack (r17 hF-2): a NAT neighbour's listen streams cannot close another client's 2025 session GET stream at the count: the neighbour is refused", async () => {
  await using h = await testHandler(beyondLoopback(), { limits: { maxStreamsPerClient: 2 } });
  const open: Response[] = [];
  try {
    const initialize = await from(h.http, "198.51.100.7", {
      method: "POST",
      headers: POST_HEADERS,
      body: INITIALIZE,
    });
    await initialize.body?.cancel();
    const sessionId = initialize.headers.get("mcp-session-id");
    assert.ok(sessionId);
    const notice = await from(h.http, "198.51.100.7", {
      method: "POST",
      headers: {
        ...POST_HEADERS,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await notice.body?.cancel();
    const get = await from(h.http, "198.51.100.7", {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
    });
    assert.equal(get.status, 200);
    open.push(get);
    // The neighbour behind the same address.
    open.push(await listen(h.http, "198.51.100.7", 1));
    assert.equal(h.http.stats().openStreams, 2);
    assert.equal(await listenStatus(h.http, "198.51.100.7", 2), 429);
    assert.equal(h.http.stats().openStreams, 2, "the session's GET stream stays open");
  } finally {
    for (const response of open) await response.body?.cancel().catch(() => {});
  }
});
