/**
 * Attack (r12, pins a guarantee not tested yet): a hostile HTTP client sends
 * JSON nested as deep as the 256 KiB body cap allows (about 128,000 levels),
 * in the request's params and inside a tool's arguments, where the SDK's and
 * our schema checks walk it recursively. Each must be one refused request;
 * the server keeps answering every other client.
 */
import assert from "node:assert/strict";
import { startHttpProgram } from "../support/http_program.ts";
import { REPO_ROOT } from "../support/program.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function deep(levels: number): string {
  return "[".repeat(levels) + "]".repeat(levels);
}

async function post(url: string, body: string, session?: string): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      ...HEADERS,
      ...(session === undefined
        ? {}
        : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
    },
    body,
  });
}

async function initialize(url: string): Promise<string> {
  const response = await post(
    url,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "deep-json", version: "1" },
      },
    }),
  );
  await response.body?.cancel();
  const session = response.headers.get("mcp-session-id");
  assert.ok(session !== null, `initialize: ${response.status}`);
  const initialized = await post(
    url,
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    session,
  );
  await initialized.body?.cancel();
  return session;
}

Deno.test("attack: JSON nested 120,000 deep in params or tool arguments is refused and serving goes on", async () => {
  await using server = await startHttpProgram(["serve", `${REPO_ROOT}/examples/skills`]);
  const session = await initialize(server.url);
  const nested = deep(120_000);
  const hostile = [
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"skill_list","arguments":{"query":${nested}}}}`,
    `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":${nested}}}`,
    `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":${nested}}}`,
    `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":${`{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":${nested}}}`}}`,
  ];
  for (const body of hostile) {
    const response = await post(server.url, body, session);
    const text = await response.text();
    assert.ok(response.status < 500, `${response.status}: ${text.slice(0, 200)}`);
    // Under the body cap: parsed and judged, not refused for its size.
    assert.notEqual(response.status, 413, body.slice(0, 80));
  }
  // A fresh client is still served, and so is the same session.
  const other = await initialize(server.url);
  const list = await post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    other,
  );
  assert.equal(list.status, 200);
  assert.match(await list.text(), /skill_list/);
  const again = await post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/list" }),
    session,
  );
  assert.equal(again.status, 200);
  assert.match(await again.text(), /skill_list/);
  assert.doesNotMatch(server.stderr(), /RangeError|Maximum call stack/);
});
