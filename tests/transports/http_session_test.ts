import assert from "node:assert/strict";
import { forEachLiveServer, liveServers } from "../../src/mcp/live_servers.ts";
import { Server } from "../../src/mcp/sdk.ts";
import {
  type CallToolResult,
  ResourceListChangedNotificationSchema,
} from "../support/sdk_client.ts";
import {
  connectClient,
  httpConfig,
  INITIALIZE,
  POST_HEADERS,
  send,
  TEST_PORT,
  TEST_TOKEN,
  testHandler,
} from "./_http.ts";

/** Polls `condition` every 10 ms for at most 10 s (a ceiling, not a timing assertion). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waitedMs = 0; waitedMs < 10_000; waitedMs += 10) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

function structured(result: unknown): Record<string, unknown> {
  return (result as CallToolResult).structuredContent as Record<string, unknown>;
}

Deno.test("HTTP session: initialize, tools/list, skill_list and skill_file through the SDK client", async () => {
  await using h = await testHandler(httpConfig());
  await using session = await connectClient(h.http);
  const { client, transport } = session;
  assert.ok(transport.sessionId, "the server issued an Mcp-Session-Id");
  assert.equal(client.getServerVersion()?.name, "skillgate");
  const tools = await client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === "skill_list"));
  const list = structured(await client.callTool({ name: "skill_list", arguments: {} }));
  const names = (list.skills as { name: string }[]).map((skill) => skill.name);
  assert.deepEqual(names.sort(), ["color-palette", "release-notes"]);
  const file = structured(
    await client.callTool({
      name: "skill_file",
      arguments: { name: "release-notes", paths: ["SKILL.md"] },
    }),
  );
  const entry = (file.files as { path: string; content?: string }[])[0];
  assert.equal(entry?.path, "SKILL.md");
  assert.match(entry?.content ?? "", /^---\nname: release-notes/);
  assert.equal(h.http.stats().sessions, 1);
  const live = liveServers().filter((item) => item.sessionId === transport.sessionId);
  assert.equal(live.length, 1, "the session's server is registered as live");
  assert.equal(live[0]?.transport, "http-session");
});

Deno.test("HTTP session: a notification from a live server reaches the client over SSE", async () => {
  await using h = await testHandler(httpConfig());
  await using session = await connectClient(h.http);
  const received = Promise.withResolvers<void>();
  session.client.setNotificationHandler(
    ResourceListChangedNotificationSchema,
    () => received.resolve(),
  );
  await eventually(() => h.http.stats().openStreams === 1, "the client's GET stream");
  forEachLiveServer((server, entry) => {
    if (entry.sessionId === session.transport.sessionId) void server.sendResourceListChanged();
  });
  await received.promise;
});

Deno.test("HTTP session: DELETE ends it, an unknown id gets 404, none gets 400", async () => {
  await using h = await testHandler(httpConfig());
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id") ?? "";
  assert.equal(h.http.stats().sessions, 1);
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  const ended = await send(h.http, { method: "DELETE", headers });
  assert.equal(ended.status, 200);
  assert.equal(h.http.stats().sessions, 0);
  assert.equal(liveServers().some((item) => item.sessionId === sessionId), false);
  const gone = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  assert.equal(gone.status, 404);
  const none = await send(h.http, {
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  assert.equal(none.status, 400);
  assert.equal(h.http.stats().sessions, 0, "a request without a session opens none");
  const options = await send(h.http, { method: "OPTIONS" });
  assert.equal(options.status, 405);
  assert.equal(options.headers.get("allow"), "GET, POST, DELETE");
});

Deno.test("--stateless: every request is answered by a fresh server, without a session", async () => {
  await using h = await testHandler(httpConfig(["--stateless"]));
  await using session = await connectClient(h.http);
  assert.equal(session.transport.sessionId, undefined);
  const list = structured(await session.client.callTool({ name: "skill_list", arguments: {} }));
  assert.equal((list.skills as unknown[]).length, 2);
  const raw = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
  });
  assert.equal(raw.status, 200);
  assert.equal(raw.headers.get("mcp-session-id"), null);
  assert.match(raw.text, /"skill_list"/);
  const get = await send(h.http, { method: "GET", headers: { accept: "text/event-stream" } });
  assert.equal(get.status, 405);
  assert.equal(h.http.stats().sessions, 0);
  assert.equal(liveServers().length, 0, "stateless servers are never registered as live");
  assert.equal(h.http.stats().inFlight, 0, "each stateless request released its slot");
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

function callRequest(sessionId: string | null, id: number): Request {
  const headers = new Headers({
    ...POST_HEADERS,
    host: `127.0.0.1:${TEST_PORT}`,
    "mcp-protocol-version": "2025-11-25",
  });
  if (sessionId !== null) headers.set("mcp-session-id", sessionId);
  return new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "wait", arguments: {} },
    }),
  });
}

Deno.test("HTTP handler refuses work beyond the per-session (429) and overall (503) ceilings", async () => {
  const gate = Promise.withResolvers<void>();
  await using h = await testHandler(httpConfig(), {
    createServer: gatedServerFactory(gate.promise),
    limits: { maxInFlight: 3, maxInFlightPerSession: 2 },
  });
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id");
  assert.ok(sessionId);
  const first = await h.http.handler(callRequest(sessionId, 2));
  const second = await h.http.handler(callRequest(sessionId, 3));
  const third = await h.http.handler(callRequest(sessionId, 4));
  assert.equal(third.status, 429);
  assert.equal(third.headers.get("retry-after"), "1");
  await third.body?.cancel();
  const other = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(other.status, 200, "a new session still fits (3 slots)");
  const otherId = other.headers.get("mcp-session-id");
  const held = await h.http.handler(callRequest(otherId, 5));
  const full = await h.http.handler(callRequest(otherId, 6));
  assert.equal(full.status, 503);
  assert.equal(full.headers.get("retry-after"), "1");
  await full.body?.cancel();
  gate.resolve();
  for (const response of [first, second, held]) {
    assert.equal(response.status, 200);
    assert.match(await response.text(), /"done"/);
  }
  assert.equal(h.http.stats().inFlight, 0);
});

Deno.test("drain() finishes in-flight requests, refuses new ones and closes every session", async () => {
  const gate = Promise.withResolvers<void>();
  await using h = await testHandler(httpConfig(), {
    createServer: gatedServerFactory(gate.promise),
  });
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id");
  const inFlight = await h.http.handler(callRequest(sessionId, 2));
  let stopWorkCalls = 0;
  const drained = h.http.drain({
    stopWork: () => {
      stopWorkCalls++;
      return Promise.resolve();
    },
  });
  assert.equal(h.http.stats().isDraining, true);
  const refused = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  const ready = await send(h.http, { path: "/readyz" });
  assert.deepEqual([ready.status, ready.json()], [503, { status: "draining" }]);
  assert.equal(stopWorkCalls, 0, "scripts are stopped only after the drain");
  gate.resolve();
  assert.match(await inFlight.text(), /"done"/, "the in-flight request got its answer");
  assert.equal(await drained, true);
  assert.equal(stopWorkCalls, 1);
  assert.equal(h.http.stats().sessions, 0);
});

Deno.test("HTTP sessions idle past the limit are closed by the sweep; active ones stay", async () => {
  let clockMs = 1_000_000;
  await using h = await testHandler(httpConfig(), { nowMs: () => clockMs });
  const open = async () =>
    (await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE })).headers.get(
      "mcp-session-id",
    ) ?? "";
  const idle = await open();
  clockMs += 29 * 60 * 1000;
  const active = await open();
  assert.equal(await h.http.closeIdleSessions(), 0, "nothing is idle for 30 minutes yet");
  clockMs += 2 * 60 * 1000;
  assert.equal(await h.http.closeIdleSessions(), 1);
  assert.equal(h.http.stats().sessions, 1);
  const ping = (sessionId: string) =>
    send(h.http, {
      method: "POST",
      headers: {
        ...POST_HEADERS,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
  assert.equal((await ping(idle)).status, 404, "the idle session is gone");
  assert.equal((await ping(active)).status, 200, "the recent session still answers");
});

Deno.test("createHttpHandler(): onActivity marks an admitted POST's arrival and its answer, never a refused request, a health probe or a GET stream", async () => {
  let marks = 0;
  await using h = await testHandler(httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }), {
    onActivity: () => marks++,
  });
  const authorized = { ...POST_HEADERS, authorization: `Bearer ${TEST_TOKEN}` };
  assert.equal((await send(h.http, { path: "/healthz" })).status, 200);
  const refused = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(refused.status, 401);
  assert.equal(marks, 0, "a request without the token is no client activity");
  const opened = await send(h.http, { method: "POST", headers: authorized, body: INITIALIZE });
  assert.equal(opened.status, 200);
  assert.equal(marks, 2, "an admitted POST marks its arrival and its answer");
  const sessionId = opened.headers.get("mcp-session-id") ?? "";
  const controller = new AbortController();
  const stream = await h.http.handler(
    new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
      headers: {
        host: `127.0.0.1:${TEST_PORT}`,
        accept: "text/event-stream",
        authorization: `Bearer ${TEST_TOKEN}`,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
      signal: controller.signal,
    }),
  );
  assert.equal(stream.status, 200, "the GET opened the session's event stream");
  await stream.body?.cancel();
  controller.abort();
  assert.equal(marks, 2, "a GET event stream is no activity");
});
