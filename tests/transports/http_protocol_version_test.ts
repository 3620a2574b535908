/**
 * Protocol revisions over HTTP (newcomer 7, 05:16): an older revision the
 * spec lets a server keep serving is negotiated as asked; an unserved
 * `Mcp-Protocol-Version` header gets 400 naming exactly what skillgate
 * serves; a JSON-RPC batch is refused on a revision that removed batches
 * (2025-06-18 and later) and still served on 2025-03-26.
 */

import assert from "node:assert/strict";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from "../../src/mcp/protocol_versions.ts";
import { httpConfig, POST_HEADERS, send, testHandler } from "./_http.ts";

function initialize(protocolVersion: string, id = 1): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
}

/** The JSON-RPC messages of a response (JSON, or the data lines of an SSE stream). */
function messages(
  text: string,
): { id?: unknown; result?: Record<string, unknown>; error?: unknown }[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return [JSON.parse(trimmed)].flat();
  return text.split("\n").filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

async function openSession(
  h: Awaited<ReturnType<typeof testHandler>>,
  version: string,
): Promise<{ sessionId: string; negotiated: unknown }> {
  const init = await send(h.http, {
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify(initialize(version)),
  });
  assert.equal(init.status, 200, init.text);
  return {
    sessionId: init.headers.get("mcp-session-id") ?? "",
    negotiated: messages(init.text)[0]?.result?.protocolVersion,
  };
}

Deno.test("initialize negotiates each older revision skillgate serves as asked, and anything else as 2025-11-25", async () => {
  await using h = await testHandler(httpConfig());
  for (const version of LEGACY_PROTOCOL_VERSIONS) {
    assert.equal((await openSession(h, version)).negotiated, version);
  }
  assert.equal((await openSession(h, "2024-10-07")).negotiated, "2025-11-25");
  assert.equal((await openSession(h, "1999-01-01")).negotiated, "2025-11-25");
});

Deno.test("an unserved Mcp-Protocol-Version header gets 400 listing exactly the served revisions", async () => {
  await using h = await testHandler(httpConfig());
  const { sessionId } = await openSession(h, "2025-11-25");
  const refused = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  assert.equal(refused.status, 400);
  const message = (refused.json() as { error: { message: string } }).error.message;
  for (const version of [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]) {
    assert.ok(message.includes(version), `${version} in: ${message}`);
  }
  assert.ok(!message.includes("2024-10-07"), message);
});

Deno.test("attack: a JSON-RPC batch on a 2025-11-25 session is refused with -32600, nothing in it is run", async () => {
  await using h = await testHandler(httpConfig());
  const { sessionId } = await openSession(h, "2025-11-25");
  const headers = { ...POST_HEADERS, "mcp-session-id": sessionId };
  const older = [{ "mcp-protocol-version": "2025-03-26" }, {
    "mcp-protocol-version": "2024-11-05",
  }];
  for (const extra of [{ "mcp-protocol-version": "2025-11-25" }, {}, ...older]) {
    const refused = await send(h.http, {
      method: "POST",
      headers: { ...headers, ...extra },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
      ]),
    });
    assert.equal(refused.status, 400);
    const error = (refused.json() as { error: { code: number; message: string } }).error;
    assert.equal(error.code, -32600);
    assert.match(error.message, /batches were removed in protocol revision 2025-06-18/);
  }
  // A batch carrying a 2025-11-25 initialize opens no session.
  const before = h.http.stats().sessions;
  const batchInit = await send(h.http, {
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify([initialize("2025-11-25")]),
  });
  assert.equal(batchInit.status, 400);
  assert.equal(h.http.stats().sessions, before);
});

Deno.test("a JSON-RPC batch on a 2025-03-26 session (batches were part of that revision) is answered", async () => {
  await using h = await testHandler(httpConfig());
  const { sessionId, negotiated } = await openSession(h, "2025-03-26");
  assert.equal(negotiated, "2025-03-26");
  const answered = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-03-26" },
    body: JSON.stringify([
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, method: "ping" },
    ]),
  });
  assert.equal(answered.status, 200, answered.text);
  assert.deepEqual(messages(answered.text).map((message) => message.id).sort(), [2, 3]);
});
