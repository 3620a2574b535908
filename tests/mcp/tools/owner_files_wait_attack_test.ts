/**
 * Review r17, hB-1: serve watches the owner's files from the first answer on,
 * so a narrowing edit made before it is read only then. Every request but
 * `initialize` and `ping` waits for the owner's files to be read once
 * (`ownerFilesRead`: the worker's `owner_files_gate.ts`, through
 * `src/mcp/owner_files_wait.ts`); one that comes first asks for the read. Here a
 * real skillgate server (every family) over an in-memory transport, its
 * `ownerFilesRead` a gate the test opens.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { createSkillServer } from "../../../src/mcp/server.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { createOwnerFilesGate } from "../../../src/worker/owner_files_gate.ts";
import { makeTree } from "../../skills/_tree.ts";
import { Client, InMemoryTransport } from "../../support/sdk_client.ts";

/**
 * A real server over skills alpha and beta, its `ownerFilesRead` a closed
 * gate (`ask` counts the asks), connected to the SDK client; disposing it
 * closes both ends and removes the skills.
 */
async function connected(ask: () => void) {
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
  const gate = createOwnerFilesGate(ask);
  const server = createSkillServer({ store, config, ownerFilesRead: gate });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "skillgate-tests", version: "1.0.0" }, { capabilities: {} });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    /** The trusted part's read found alpha turned off: its overlay applied, then the gate opens. */
    readAlphaOff() {
      store.setOverlay({ overrides: { alpha: { enabled: false } }, problems: [] });
      gate.open();
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
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
