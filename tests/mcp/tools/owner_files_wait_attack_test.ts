/**
 * Review r17, hB-1: serve watches the owner's files from the first answer on,
 * so a narrowing edit made before it is read only then. Every request but
 * `initialize` and `ping` waits for the owner's files to be read once
 * (`ownerFilesRead`: the worker's `owner_files_gate.ts`, through
 * `src/mcp/owner_files_wait.ts`); one that comes first asks for the read. Here a
 * real skillgate server (every family) over an in-memory transport, its
 * `ownerFilesRead` a gate the test opens. Session 13, hA: the wait is bounded,
 * and a refused wait is a well-formed error for both SDK client lines.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { createSkillServer } from "../../../src/mcp/server.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { createOwnerFilesGate } from "../../../src/worker/owner_files_gate.ts";
import { makeTree } from "../../skills/_tree.ts";
import { looseRequest } from "../../support/loose_request.ts";
import { Client, InMemoryTransport, McpError } from "../../support/sdk_client.ts";
import { ClientV2, ProtocolErrorV2 } from "../../support/sdk_v2_client.ts";
import { type CalledTool, toolErrorJson } from "../../support/tool_answer.ts";

/**
 * A real server over skills alpha and beta, its `ownerFilesRead` a closed
 * gate (`ask` counts the asks), connected to the SDK client; disposing it
 * closes both ends and removes the skills.
 */
async function connected(ask: () => void, options: { waitMs?: number } = {}) {
  const tree = await makeTree({
    "alpha/SKILL.md": "---\nname: alpha\ndescription: The alpha skill.\n---\n# Alpha\n",
    "beta/SKILL.md": "---\nname: beta\ndescription: The beta skill.\n---\n# Beta\n",
  });
  const config = parseCommandLine({
    args: ["serve", tree.at(".")],
    getEnv: () => undefined,
    cwd: "/",
  });
  const store = createCatalogStore(await buildCatalog(config.roots, DEFAULT_CAPS));
  const gate = createOwnerFilesGate(ask, options);
  const server = createSkillServer({ store, config, ownerFilesRead: gate });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "skillgate-tests", version: "1.0.0" }, { capabilities: {} });
  await server.connect(serverSide);
  await client.connect(clientSide);
  // The 2.x client line too, on the same server (a second connection).
  const serverV2 = createSkillServer({ store, config, ownerFilesRead: gate });
  const [clientSideV2, serverSideV2] = InMemoryTransport.createLinkedPair();
  const clientV2 = new ClientV2({ name: "skillgate-tests-v2", version: "1.0.0" });
  await serverV2.connect(serverSideV2);
  await clientV2.connect(clientSideV2 as never);
  return {
    client,
    clientV2,
    /** The trusted part's read found alpha turned off: its overlay applied, then the gate opens. */
    readAlphaOff() {
      store.setOverlay({ overrides: { alpha: { enabled: false } }, problems: [] });
      gate.open();
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
      await clientV2.close();
      await serverV2.close();
      await tree[Symbol.asyncDispose]();
    },
  };
}

Deno.test("attack (r17 hB-1): a tool call before the owner's files were read waits, asks for the read once, and is answered under the overlay that read put in force", async () => {
  let asked = 0;
  await using session = await connected(() => asked++);
  const { client } = session;
  let isAnswered = false;
  const names = (calls: number) =>
    client.callTool({ name: "skill_list", arguments: {} }).then((result) => {
      isAnswered = true;
      const listed = result.structuredContent as { skills: { name: string }[] };
      return { calls, names: listed.skills.map((skill) => skill.name) };
    });
  const first = names(1);
  const second = names(2);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(isAnswered, false, "a tool call ran before the owner's files were read");
  assert.equal(asked, 1, "the read is asked for once");
  session.readAlphaOff();
  assert.deepEqual((await first).names, ["beta"]);
  assert.deepEqual((await second).names, ["beta"]);
  // Open: later calls neither wait nor ask.
  assert.deepEqual((await names(3)).names, ["beta"]);
  assert.equal(asked, 1);
});

Deno.test("attack (r17 hB-1): listings and reads wait for the owner's files too (resources, prompts); ping does not", async () => {
  await using session = await connected(() => {});
  const { client } = session;
  const settled: string[] = [];
  const resources = client.listResources().then((result) => {
    settled.push("resources");
    return JSON.stringify(result);
  });
  const prompts = client.listPrompts().then((result) => {
    settled.push("prompts");
    return JSON.stringify(result);
  });
  await client.ping();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(settled, [], "a listing was answered before the owner's files were read");
  session.readAlphaOff();
  for (const listed of [await resources, await prompts]) {
    assert.ok(!listed.includes("alpha"), `a turned-off skill was listed: ${listed}`);
    assert.ok(listed.includes("beta"), listed);
  }
});

Deno.test("attack (s13 hA): skills/list, skills/get and resources/directory/read (registered with a params schema) wait for the owner's files too, and are answered under that read's overlay", async () => {
  await using session = await connected(() => {});
  const { client } = session;
  const settled: string[] = [];
  const waits = [
    ["skills/list", {}],
    ["skills/get", { uri: "skill://alpha/SKILL.md" }],
    ["resources/directory/read", { uri: "skill://alpha/" }],
  ].map(([method, params]) =>
    looseRequest(client, method as string, params as Record<string, unknown>).then(
      (result) => (settled.push(method as string), JSON.stringify(result)),
      (error: unknown) => (settled.push(method as string), String(error)),
    )
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(settled, [], "a skills-extension method was answered before the read");
  session.readAlphaOff();
  const [listed, got, directory] = await Promise.all(waits);
  assert.ok(!listed!.includes("alpha") && listed!.includes("beta"), listed);
  assert.match(got!, /-32602|No skill is served/, `alpha was served: ${got}`);
  assert.ok(!directory!.includes("SKILL.md"), `alpha's folder was served: ${directory}`);
});

Deno.test("s13 hA: a wait for the owner's files that runs out is refused, never served on older overrides: tools/call as the tool error OWNER_SETTINGS_UNREAD, a listing as JSON-RPC -32603, well-formed for the 1.x and 2.x clients; the next request asks again", async () => {
  let asked = 0;
  await using session = await connected(() => asked++, { waitMs: 150 });
  const { client, clientV2 } = session;
  const started = performance.now();
  const [callV1, callV2, listV1, listV2] = await Promise.all([
    client.callTool({ name: "skill_list", arguments: {} }),
    clientV2.callTool({ name: "skill_list", arguments: {} }),
    client.listResources().then(() => null, (error: unknown) => error),
    clientV2.listResources().then(() => null, (error: unknown) => error),
  ]);
  assert.ok(performance.now() - started < 5_000, "the refusal waited far past the bound");
  for (const result of [callV1, callV2]) {
    const body = toolErrorJson(result as CalledTool);
    assert.equal(body.error, "OWNER_SETTINGS_UNREAD", JSON.stringify(body));
    assert.match(body.message, /did not finish reading its owner's settings.*ask again/);
    assert.match(body.hint, /again in a few seconds/);
    assert.equal((result as CalledTool).structuredContent, undefined);
  }
  assert.ok(listV1 instanceof McpError, String(listV1));
  assert.ok(listV2 instanceof ProtocolErrorV2, String(listV2));
  for (const error of [listV1, listV2] as (McpError | ProtocolErrorV2)[]) {
    assert.equal(error.code, -32603, error.message);
    assert.match(error.message, /did not finish reading its owner's settings.*ask again/);
  }
  // Each wait that ran out let the next one ask again; this one is answered, under the read.
  const before = asked;
  const again = client.callTool({ name: "skill_list", arguments: {} });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(asked, before + 1, "the next request did not ask again");
  session.readAlphaOff();
  const listed = (await again).structuredContent as { skills: { name: string }[] };
  assert.deepEqual(listed.skills.map((skill) => skill.name), ["beta"]);
});
