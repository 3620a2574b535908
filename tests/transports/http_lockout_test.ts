/**
 * Issue 11, item 3: no lock-out. A full session table, a flood of busy
 * sessions or a crowd of unfinished bodies must never refuse a new client
 * on loopback; beyond loopback each address gives way before another's.
 */

import assert from "node:assert/strict";
import { Server } from "../../src/mcp/sdk.ts";
import type { HttpHandler } from "../../src/transports/http/handler.ts";
import {
  httpConfig,
  INITIALIZE,
  POST_HEADERS,
  send,
  TEST_PORT,
  TEST_TOKEN,
  testHandler,
} from "./_http.ts";

/** An `initialize` POST as `address` would send it (optionally with the token). */
function initializeRequest(options: { token?: string; body?: BodyInit } = {}): Request {
  const headers = new Headers({ ...POST_HEADERS, host: `127.0.0.1:${TEST_PORT}` });
  if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
  return new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: "POST",
    headers,
    body: options.body ?? INITIALIZE,
  });
}

async function openSession(
  http: HttpHandler,
  options: { address?: string; token?: string } = {},
): Promise<string> {
  const response = await http.handler(
    initializeRequest(options),
    options.address === undefined ? undefined : { remoteAddress: options.address },
  );
  await response.body?.cancel();
  assert.equal(response.status, 200, "the session is admitted");
  const id = response.headers.get("mcp-session-id");
  assert.ok(id);
  return id;
}

async function ping(
  http: HttpHandler,
  sessionId: string,
  options: { token?: string } = {},
): Promise<number> {
  const answer = await send(http, {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
  });
  return answer.status;
}

/** A body that sends one byte and then nothing. */
function stalledBody(): ReadableStream<Uint8Array> {
  let hasSent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (hasSent) return new Promise<void>(() => {});
      hasSent = true;
      controller.enqueue(new TextEncoder().encode("{"));
    },
  });
}

Deno.test("attack: a full session table never refuses a new client; the least-recently-used idle session gives way", async () => {
  await using h = await testHandler(httpConfig(), { limits: { maxSessions: 8 } });
  const flood: string[] = [];
  for (let index = 0; index < 8; index++) flood.push(await openSession(h.http));
  // The first session stays in use: it is not the least recently used any more.
  assert.equal(await ping(h.http, flood[0] ?? ""), 200);
  for (let index = 0; index < 20; index++) await openSession(h.http);
  assert.equal(h.http.stats().sessions, 8, "the table never grows past its ceiling");
  const newcomer = await openSession(h.http);
  assert.equal(await ping(h.http, newcomer), 200, "the newest client is served");
  assert.equal(await ping(h.http, flood[1] ?? ""), 404, "an old idle flood session was closed");
  const ready = await send(h.http, { path: "/readyz" });
  assert.deepEqual([ready.status, ready.json()], [200, { status: "ready" }]);
});

Deno.test("attack: unfinished bodies hold one body slot each and never block initialize", async () => {
  // The deadline only ends the test's last stalled reads; nothing here is timed.
  await using h = await testHandler(httpConfig(), {
    limits: { maxBodyReads: 4, bodyTimeoutMs: 2_000 },
  });
  const stalled = Array.from(
    { length: 6 },
    () => h.http.handler(initializeRequest({ body: stalledBody() })),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(h.http.stats().bodyReads, 4, "the pool holds at most 4 reads");
  assert.equal(h.http.stats().inFlight, 0, "a body being read holds no request slot");
  const ready = await send(h.http, { path: "/readyz" });
  assert.equal(ready.status, 200, "readiness is about answers, and answers have room");
  const fresh = await openSession(h.http);
  assert.equal(await ping(h.http, fresh), 200);
  const answers = await Promise.all(stalled);
  const messages = await Promise.all(answers.map((answer) => answer.text()));
  for (const answer of answers) {
    assert.equal(answer.status, 408);
    assert.equal(answer.headers.get("connection"), "close");
  }
  const evicted = messages.filter((text) => /stalled while other bodies waited/.test(text));
  assert.equal(evicted.length, 3, "two gave way to later stalled bodies, one to the newcomer");
  assert.equal(h.http.stats().bodyReads, 0);
});

/** A server whose one tool waits until `gate` opens. */
function gatedServerFactory(gate: Promise<void>): () => Server {
  return () => {
    const server = new Server({ name: "gated", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler("tools/list", () => ({ tools: [] }));
    server.setRequestHandler("tools/call", async () => {
      await gate;
      return { content: [{ type: "text", text: "done" }] };
    });
    return server;
  };
}

function call(sessionId: string, id: number): Request {
  return new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      host: `127.0.0.1:${TEST_PORT}`,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "wait", arguments: {} },
    }),
  });
}

Deno.test("attack: a flood of busy sessions fills the request pool, yet a client asking one thing at a time is served; /readyz says busy", async () => {
  const gate = Promise.withResolvers<void>();
  await using h = await testHandler(httpConfig(), {
    createServer: gatedServerFactory(gate.promise),
    limits: { maxInFlight: 4, maxInFlightPerSession: 4 },
  });
  const flooder = await openSession(h.http);
  const held = await Promise.all([1, 2, 3, 4].map((id) => h.http.handler(call(flooder, id))));
  const refused = await h.http.handler(call(flooder, 5));
  assert.equal(refused.status, 503);
  assert.match(refused.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  await refused.body?.cancel();
  const ready = await send(h.http, { path: "/readyz" });
  assert.deepEqual([ready.status, ready.json()], [503, { status: "busy" }]);
  assert.ok(ready.headers.get("retry-after"), "busy readiness says when to come back");
  const polite = await openSession(h.http);
  const served = h.http.handler(call(polite, 1));
  gate.resolve();
  assert.equal((await served).status, 200, "a session with nothing in flight gets its request in");
  for (const response of [...held, await served]) assert.match(await response.text(), /"done"/);
  assert.equal(h.http.stats().inFlight, 0);
});

Deno.test("attack: beyond loopback one address's flood of sessions evicts its own, not another address's", async () => {
  const config = httpConfig(["--host=0.0.0.0"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });
  await using h = await testHandler(config, {
    limits: { maxSessions: 6, maxSessionsPerClient: 4 },
  });
  const token = TEST_TOKEN;
  const victim = [
    await openSession(h.http, { address: "192.0.2.1", token }),
    await openSession(h.http, { address: "192.0.2.1", token }),
  ];
  const attacker: string[] = [];
  for (let index = 0; index < 30; index++) {
    attacker.push(await openSession(h.http, { address: "198.51.100.7", token }));
  }
  assert.equal(h.http.stats().sessions, 6);
  for (const id of victim) assert.equal(await ping(h.http, id, { token }), 200, "untouched");
  assert.equal(await ping(h.http, attacker[0] ?? "", { token }), 404, "its own oldest went");
  assert.equal(await ping(h.http, attacker[29] ?? "", { token }), 200);
  // A third address arriving at a full table takes room from the largest unit.
  const third = await openSession(h.http, { address: "203.0.113.9", token });
  assert.equal(await ping(h.http, third, { token }), 200);
  for (const id of victim) assert.equal(await ping(h.http, id, { token }), 200, "still untouched");
});

Deno.test("attack: sessions opened and never used give way before a working client's, however old", async () => {
  await using h = await testHandler(httpConfig(), { limits: { maxSessions: 4 } });
  const working = await openSession(h.http);
  assert.equal(await ping(h.http, working), 200);
  // Opened after the working client's last request, so all are more recent.
  for (let index = 0; index < 12; index++) await openSession(h.http);
  assert.equal(h.http.stats().sessions, 4);
  assert.equal(await ping(h.http, working), 200, "the working client kept its session");
});

Deno.test("attack: beyond loopback one address's flood of requests takes its own share, not another address's", async () => {
  const gate = Promise.withResolvers<void>();
  const config = httpConfig(["--host=0.0.0.0"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });
  await using h = await testHandler(config, {
    createServer: gatedServerFactory(gate.promise),
    limits: { maxInFlight: 8, maxInFlightPerClient: 3 },
  });
  const token = TEST_TOKEN;
  const asAddress = (address: string, request: Request) => {
    request.headers.set("authorization", `Bearer ${token}`);
    return h.http.handler(request, { remoteAddress: address });
  };
  const flooder = await openSession(h.http, { address: "198.51.100.7", token });
  const held = await Promise.all(
    [1, 2, 3].map((id) => asAddress("198.51.100.7", call(flooder, id))),
  );
  const refused = await asAddress("198.51.100.7", call(flooder, 4));
  assert.equal(refused.status, 429);
  assert.match(await refused.text(), /this client has 3 requests in flight/);
  const other = await openSession(h.http, { address: "192.0.2.1", token });
  const served = asAddress("192.0.2.1", call(other, 1));
  gate.resolve();
  assert.equal((await served).status, 200);
  for (const response of [...held, await served]) assert.match(await response.text(), /"done"/);
});

Deno.test("attack: 1,000 sessions that each work a little never evict a working client's session, and every newcomer gets in", async () => {
  await using h = await testHandler(httpConfig(), { limits: { maxSessions: 16 } });
  const working = await openSession(h.http);
  const statuses: number[] = [];
  // Each flood session asks something (so it is not "never used"), then goes idle; the
  // working client asks one thing between every few of them, as an active client does.
  for (let index = 0; index < 1_000; index++) {
    const flood = await openSession(h.http);
    assert.equal(await ping(h.http, flood), 200);
    if (index % 4 === 0) statuses.push(await ping(h.http, working));
  }
  assert.equal(h.http.stats().sessions, 16, "the table never grows past its ceiling");
  assert.deepEqual(statuses.filter((status) => status !== 200), [], "never evicted, never refused");
});
