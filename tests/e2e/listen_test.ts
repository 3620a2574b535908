/**
 * Issue 12: `subscriptions/listen` (2026-07-28) carries live refresh. A client
 * opens a listen stream asking for list changes and one resource's updates;
 * a skill added to the root then arrives as `notifications/resources/list_changed`
 * and `notifications/prompts/list_changed`, tagged with the subscription id, on
 * stdio and on HTTP.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { waitForNotification } from "../../bench/support/measure.ts";
import { spawnRpcChild } from "../../bench/support/rpc_client.ts";
import { skillgateCommand } from "../../bench/support/servers.ts";
import { startHttpProgram } from "../support/http_program.ts";

/** A generous bound on how long live refresh may take under CI load, in ms (a guard, not a figure). */
const WAIT_MS = 30_000;
const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const FILTER = {
  notifications: {
    resourcesListChanged: true,
    promptsListChanged: true,
    toolsListChanged: true,
  },
};

async function makeRoot(): Promise<{ root: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-listen-" });
  const root = join(base, "skills");
  await Deno.mkdir(join(root, "first"), { recursive: true });
  await Deno.writeTextFile(
    join(root, "first", "SKILL.md"),
    "---\nname: first\ndescription: One.\n---\n# One\n",
  );
  return { root, [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }) };
}

async function addSkill(root: string): Promise<void> {
  await Deno.mkdir(join(root, "second"));
  await Deno.writeTextFile(
    join(root, "second", "SKILL.md"),
    "---\nname: second\ndescription: Two.\n---\n# Two\n",
  );
}

Deno.test("stdio: a skill added while a subscriptions/listen stream is open arrives on it", async () => {
  await using tree = await makeRoot();
  await using child = spawnRpcChild(skillgateCommand([tree.root]));
  await child.request("server/discover", { _meta: META });
  const acknowledged = waitForNotification(
    child,
    (notification) => notification.method === "notifications/subscriptions/acknowledged",
    WAIT_MS,
  );
  const stream = child.request("subscriptions/listen", { ...FILTER, _meta: META });
  stream.catch(() => {}); // ends with the child
  const ack = await acknowledged;
  assert.ok(ack !== null, "the stream was acknowledged");
  const subscriptionId = (ack.notification.params._meta as Record<string, unknown> | undefined)
    ?.[SUBSCRIPTION_ID_KEY];
  const changed = waitForNotification(
    child,
    (notification) => notification.method === "notifications/resources/list_changed",
    WAIT_MS,
  );
  await addSkill(tree.root);
  const arrived = await changed;
  assert.ok(arrived !== null, `resources/list_changed arrived; stderr: ${child.stderrTail()}`);
  assert.equal(
    (arrived.notification.params._meta as Record<string, unknown> | undefined)
      ?.[SUBSCRIPTION_ID_KEY],
    subscriptionId,
  );
});

Deno.test("HTTP: a skill added while a subscriptions/listen stream is open arrives on its SSE stream", async () => {
  await using tree = await makeRoot();
  await using server = await startHttpProgram(["serve", tree.root]);
  const abort = new AbortController();
  const response = await fetch(server.url, {
    method: "POST",
    signal: abort.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: { ...FILTER, _meta: META },
    }),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: string[] = [];
  let text = "";
  const until = async (method: string) => {
    while (!text.includes(`"method":"${method}"`)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += chunk.value;
    }
    seen.push(method);
    return text.includes(`"method":"${method}"`);
  };
  const guard = setTimeout(() => abort.abort(), WAIT_MS);
  try {
    assert.ok(await until("notifications/subscriptions/acknowledged"), text);
    await addSkill(tree.root);
    assert.ok(await until("notifications/resources/list_changed"), text);
    assert.match(text, new RegExp(SUBSCRIPTION_ID_KEY.replaceAll("/", "\\/")));
  } finally {
    clearTimeout(guard);
    await reader.cancel().catch(() => {});
  }
});
