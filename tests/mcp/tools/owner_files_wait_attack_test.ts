/**
 * Review r17, hB-1: serve watches the owner's files from the first answer on,
 * so a narrowing edit made before it is read only then. Every tool call waits
 * for the owner's files to be read once (`ownerFilesRead`, the worker's
 * `owner_files_gate.ts`); a call that comes first asks for the read. Here a
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

Deno.test("attack (r17 hB-1): a tool call before the owner's files were read waits, asks for the read once, and is answered under the overlay that read put in force", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": "---\nname: alpha\ndescription: The alpha skill.\n---\n# Alpha\n",
    "beta/SKILL.md": "---\nname: beta\ndescription: The beta skill.\n---\n# Beta\n",
  });
  const config = parseCommandLine({
    args: ["serve", tree.at(".")],
    getEnv: () => undefined,
    cwd: "/",
  });
  const store = createCatalogStore(await buildCatalog(config.roots, DEFAULT_CAPS));
  let asked = 0;
  const gate = createOwnerFilesGate(() => asked++);
  const server = createSkillServer({ store, config, ownerFilesRead: () => gate.whenRead() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "skillgate-tests", version: "1.0.0" }, { capabilities: {} });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
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
    // The trusted part's read found alpha turned off: its overlay is applied, then the gate opens.
    store.setOverlay({ overrides: { alpha: { enabled: false } }, problems: [] });
    gate.open();
    assert.deepEqual((await first).names, ["beta"]);
    assert.deepEqual((await second).names, ["beta"]);
    // Open: later calls neither wait nor ask.
    assert.deepEqual((await names(3)).names, ["beta"]);
    assert.equal(asked, 1);
  } finally {
    await client.close();
    await server.close();
  }
});
