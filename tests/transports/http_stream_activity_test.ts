// Session 9 LOW: a standby stream's activity was its client's last request (a 2025 session's) or
// its opening (a 2026-07-28 listen stream), never what it carried: at the connection cap, a stream
// delivering events right now ranked as idle as one silent for hours and could give way first.
// Its activity now counts the events it sends.

import assert from "node:assert/strict";
import { forEachLiveServer, liveNotifiers } from "../../src/mcp/live_servers.ts";
import { standbyOf } from "../../src/transports/http/standby.ts";
import { httpConfig, INITIALIZE, POST_HEADERS, send, TEST_PORT, testHandler } from "./_http.ts";

Deno.test("a 2025 session's GET stream counts as active when it last carried an event, not only at its session's last request", async () => {
  let now = 1_000;
  await using h = await testHandler(httpConfig(), { nowMs: () => now });
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id") ?? "";
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  const initialized = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(initialized.status, 202);
  now = 2_000;
  const request = new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: "GET",
    headers: { host: `127.0.0.1:${TEST_PORT}`, accept: "text/event-stream", ...headers },
  });
  request.headers.set("host", `127.0.0.1:${TEST_PORT}`);
  const stream = await h.http.handler(request);
  assert.equal(stream.status, 200);
  const mark = standbyOf(stream);
  assert.ok(mark !== undefined, "the GET stream is a standby stream");
  assert.equal(mark.lastActiveMs(), 2_000);
  const reader = stream.body!.getReader();
  try {
    // Much later, with no request of its client since, the server sends an event on it.
    now = 9_000;
    let isSent = false;
    forEachLiveServer((server, entry) => {
      if (entry.sessionId !== sessionId) return;
      isSent = true;
      void server.sendToolListChanged();
    });
    assert.ok(isSent, "the session's server is live");
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes("notifications/tools/list_changed")) {
      const { value, done } = await reader.read();
      assert.equal(done, false, "the stream ended before the event");
      text += decoder.decode(value, { stream: true });
    }
    assert.equal(mark.lastActiveMs(), 9_000, "the event it carried did not count as activity");
  } finally {
    await reader.cancel();
  }
});

Deno.test("a 2026-07-28 subscriptions/listen stream counts as active when it last carried an event, not only when it opened", async () => {
  let now = 1_000;
  await using h = await testHandler(httpConfig(), { nowMs: () => now });
  const listen = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: {
      notifications: { promptsListChanged: true },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const request = new Request(`http://127.0.0.1:${TEST_PORT}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: listen,
  });
  request.headers.set("host", `127.0.0.1:${TEST_PORT}`);
  const stream = await h.http.handler(request);
  assert.equal(stream.status, 200);
  const mark = standbyOf(stream);
  assert.ok(mark !== undefined, "the listen stream is a standby stream");
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const readUntil = async (marker: string) => {
    while (!text.includes(marker)) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the stream ended before ${marker}`);
      text += decoder.decode(value, { stream: true });
    }
  };
  try {
    await readUntil("notifications/subscriptions/acknowledged");
    assert.equal(mark.lastActiveMs(), 1_000);
    // Much later the prompts change: the stream carries the event.
    now = 7_000;
    const notifiers = liveNotifiers();
    assert.ok(notifiers.length > 0, "the modern endpoint is registered for live refresh");
    for (const notifier of notifiers) notifier.promptsChanged();
    await readUntil("notifications/prompts/list_changed");
    assert.equal(mark.lastActiveMs(), 7_000, "the event it carried did not count as activity");
  } finally {
    await reader.cancel();
  }
});
