import assert from "node:assert/strict";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { ToolListChangedNotificationSchema } from "../../support/sdk_client.ts";
import { testCatalog } from "../resources/_catalog.ts";
import { connectInMemory, type ConnectOptions } from "../skills_extension/_connect.ts";

const EXTENSION_CLIENT = { extensions: { "io.modelcontextprotocol/skills": {} } };

async function toolsSeen(options: ConnectOptions): Promise<{
  names: string[];
  listChanged: number;
  descriptions: Map<string, string>;
  instructions: string;
  callLoad: () => Promise<unknown>;
  close: () => Promise<void>;
}> {
  const store = createCatalogStore(testCatalog([{ name: "alpha" }, { name: "beta" }]));
  let listChanged = 0;
  const session = await connectInMemory(store, {
    ...options,
    beforeConnect: (client) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged++;
      }),
  });
  // A ping round trip lets the initialized notification and any list_changed settle.
  await session.client.ping();
  await session.client.ping();
  const listed = await session.client.listTools();
  return {
    names: listed.tools.map((tool) => tool.name),
    listChanged,
    descriptions: new Map(listed.tools.map((tool) => [tool.name, tool.description ?? ""])),
    instructions: session.client.getInstructions() ?? "",
    callLoad: () => session.client.callTool({ name: "skill_load", arguments: { name: "alpha" } }),
    close: async () => await session[Symbol.asyncDispose](),
  };
}

Deno.test("--tools=auto withdraws skill_load and skill_file from a client that declares the skills extension", async () => {
  const seen = await toolsSeen({ clientCapabilities: EXTENSION_CLIENT });
  try {
    assert.ok(seen.names.includes("skill_list"), "skill_list is never withdrawn");
    assert.ok(seen.names.includes("skill_search"), "skill_search is never withdrawn");
    assert.ok(!seen.names.includes("skill_load"));
    assert.ok(!seen.names.includes("skill_file"));
    assert.equal(seen.listChanged, 1, "tools/list_changed follows initialize");
    await assert.rejects(
      seen.callLoad(),
      (error: unknown) => (error as { code?: number }).code === -32602,
    );
  } finally {
    await seen.close();
  }
});

Deno.test("--tools=auto keeps every tool for a client without the extension, and on stateless HTTP", async () => {
  for (const options of [{}, { clientCapabilities: EXTENSION_CLIENT, isStateless: true }]) {
    const seen = await toolsSeen(options);
    try {
      assert.ok(seen.names.includes("skill_load") && seen.names.includes("skill_file"));
      assert.equal(seen.listChanged, 0);
    } finally {
      await seen.close();
    }
  }
});

Deno.test("--tools=always offers every tool even to a client that declares the extension", async () => {
  const seen = await toolsSeen({ flags: ["--tools=always"], clientCapabilities: EXTENSION_CLIENT });
  try {
    assert.ok(seen.names.includes("skill_load") && seen.names.includes("skill_file"));
    assert.equal(seen.listChanged, 0);
  } finally {
    await seen.close();
  }
});

Deno.test("--tools=never never offers skill_load or skill_file", async () => {
  const seen = await toolsSeen({ flags: ["--tools=never"] });
  try {
    assert.ok(seen.names.includes("skill_list"));
    assert.ok(!seen.names.includes("skill_load") && !seen.names.includes("skill_file"));
    await assert.rejects(seen.callLoad());
  } finally {
    await seen.close();
  }
});

Deno.test("--catalog=tool-description puts the catalog in skill_load's description only, and auto has no effect", async () => {
  const seen = await toolsSeen({
    flags: ["--catalog=tool-description"],
    clientCapabilities: EXTENSION_CLIENT,
  });
  try {
    assert.ok(seen.names.includes("skill_load"), "auto does not withdraw in tool-description mode");
    assert.match(
      seen.descriptions.get("skill_load") ?? "",
      /<available_skills>[\s\S]*<name>alpha<\/name>[\s\S]*<name>beta<\/name>/,
    );
    assert.ok(!(seen.descriptions.get("skill_list") ?? "").includes("<available_skills>"));
    assert.ok(!seen.instructions.includes("<available_skills>"));
    assert.match(seen.instructions, /skill_load's description/);
  } finally {
    await seen.close();
  }
});

Deno.test("--tools=auto: a skills-extension client's instructions name skills/get and resources/read, never the withdrawn tools", async () => {
  const seen = await toolsSeen({ clientCapabilities: EXTENSION_CLIENT });
  try {
    assert.ok(!seen.instructions.includes("skill_load"), seen.instructions);
    assert.ok(!seen.instructions.includes("skill_file"), seen.instructions);
    assert.match(seen.instructions, /skills\/get/);
    assert.match(seen.instructions, /<name>alpha<\/name>/, "the catalog is still there");
    for (const name of seen.names) {
      const description = seen.descriptions.get(name) ?? "";
      assert.ok(!/skill_load|skill_file/.test(description), `${name}: ${description}`);
    }
  } finally {
    await seen.close();
  }
});

Deno.test("--tools=auto: a client without the extension is told to use skill_load and skill_file", async () => {
  const seen = await toolsSeen({});
  try {
    assert.match(seen.instructions, /skill_load with its name/);
    assert.match(seen.instructions, /skill_file/);
  } finally {
    await seen.close();
  }
});

Deno.test("--tools=never: the instructions name resources, never skill_load or skill_file", async () => {
  const seen = await toolsSeen({ flags: ["--tools=never"] });
  try {
    assert.ok(!seen.instructions.includes("skill_load"), seen.instructions);
    assert.ok(!seen.instructions.includes("skill_file"), seen.instructions);
    assert.match(seen.instructions, /SKILL\.md URI as a resource/);
    for (const name of seen.names) {
      const description = seen.descriptions.get(name) ?? "";
      assert.ok(!/skill_load|skill_file/.test(description), `${name}: ${description}`);
    }
  } finally {
    await seen.close();
  }
});
