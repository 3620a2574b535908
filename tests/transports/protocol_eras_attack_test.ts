/**
 * Attack (r11 on s25): protocol versions and JSON-RPC batches. Every
 * revision a real client still sends in `initialize` (2024-11-05 from old
 * clients and the Inspector, 2025-03-26, 2025-06-18 from the 1.1x SDKs,
 * 2025-11-25) must end in a version the client itself lists as supported
 * (the spec: the server answers the requested version when it supports it,
 * else one it does support, and the client disconnects if it cannot speak
 * that one). A batch on an HTTP session whose revision removed batching
 * (2025-06-18 and later) gets JSON-RPC -32600 and runs nothing of it; a
 * batch on a 2025-03-26 session (which had batching) is answered.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnRpcChild } from "../../bench/support/rpc_client.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { POST_HEADERS } from "../support/mcp_messages.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

/** What each era of client sends and what it accepts back (SDK SUPPORTED_PROTOCOL_VERSIONS). */
const CLIENTS: readonly { asks: string; accepts: readonly string[] }[] = [
  { asks: "2024-11-05", accepts: ["2024-11-05", "2024-10-07"] },
  { asks: "2025-03-26", accepts: ["2025-03-26", "2024-11-05", "2024-10-07"] },
  { asks: "2025-06-18", accepts: ["2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] },
  {
    asks: "2025-11-25",
    accepts: ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"],
  },
];

async function makeRoot(): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "r11-eras-" });
  await Deno.mkdir(join(root, "greeter"));
  await Deno.writeTextFile(
    join(root, "greeter", "SKILL.md"),
    "---\nname: greeter\ndescription: Greets by name.\n---\n# Greeter\n",
  );
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

const initialize = (version: string, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "r11", version: "1" } },
});

for (const client of CLIENTS) {
  Deno.test(`attack: a stdio client asking ${client.asks} gets a version it accepts, then tools/list`, async () => {
    await using tree = await makeRoot();
    await using child = spawnRpcChild({
      executable: Deno.execPath(),
      args: programCommand(["serve", tree.root]),
      cwd: REPO_ROOT,
      env: programEnv(),
    });
    const init = (await child.request("initialize", initialize(client.asks).params)).result as {
      protocolVersion: string;
    };
    assert.ok(
      client.accepts.includes(init.protocolVersion),
      `asked ${client.asks}, got ${init.protocolVersion}`,
    );
    await child.notify("notifications/initialized", {});
    const tools = (await child.request("tools/list", {})).result as { tools: unknown[] };
    assert.ok(tools.tools.length > 0);
  });
}

/** POSTs `body` (JSON) to the server with `headers` added. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

for (const client of CLIENTS) {
  Deno.test(`attack: an HTTP session of ${client.asks}: the version it accepts, and batches as that revision says`, async () => {
    await using tree = await makeRoot();
    await using server = await startHttpProgram(["serve", tree.root]);
    const opened = await post(server.url, initialize(client.asks));
    assert.equal(opened.status, 200, opened.text);
    const session = opened.headers.get("mcp-session-id");
    assert.ok(session !== null, "no session id");
    const version = /"protocolVersion":"([^"]+)"/.exec(opened.text)?.[1] ?? "";
    assert.ok(client.accepts.includes(version), `asked ${client.asks}, got ${version}`);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": version };
    const initialized = await post(server.url, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, headers);
    assert.equal(initialized.status, 202, initialized.text);
    const batch = await post(server.url, [
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 3, method: "ping", params: {} },
    ], headers);
    if (version >= "2025-06-18") {
      assert.match(batch.text, /-32600/, `batch on ${version}: ${batch.status} ${batch.text}`);
      assert.doesNotMatch(batch.text, /skill_list/, "part of the batch ran");
    } else {
      assert.equal(batch.status, 200, batch.text);
      assert.match(batch.text, /skill_list/, `batch on ${version}: ${batch.text}`);
    }
  });
}
