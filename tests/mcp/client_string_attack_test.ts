/**
 * Issue 11, item 4: every client string that reaches a lookup has a stated
 * cap, and the lookup is an index. Each test sends a 4 MiB string (as one
 * request under the 4 MiB body cap) through the real HTTP handler, without
 * a port, to a catalog of 10,000 skills that counts how it is looked at.
 */

import assert from "node:assert/strict";
import { catalogIndex } from "../../src/mcp/catalog_index.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { looseRequest } from "../support/loose_request.ts";
import { type CallToolResult, McpError } from "../support/sdk_client.ts";
import { connectClient, httpConfig, testHandler } from "../transports/_http.ts";
import { type CountingCatalog, countingCatalog } from "./_counting_catalog.ts";

/**
 * A 4 MiB string less room for the JSON-RPC envelope. Over HTTP the body cap
 * (MAX_HTTP_BODY_BYTES, 256 KiB) refuses such a body before it is parsed
 * (tests/transports/http_body_test.ts); stdio carries lines up to 10 MiB.
 * The string caps are their own gate, so these tests lift the body cap to
 * {@linkcode TEST_BODY_BYTES} to reach them.
 */
const HUGE = "a".repeat(4 * 1024 * 1024 - 64 * 1024);
/** The body cap of this file's handler: 4 MiB, the old cap. */
const TEST_BODY_BYTES = 4 * 1024 * 1024;
const SKILLS = 10_000;

/** One counting catalog for the file: building 10,000 skills once is enough. */
const counting: CountingCatalog = countingCatalog(SKILLS);
// The snapshot's index is built once per snapshot (as the first request would).
catalogIndex(counting.catalog);

async function withClient(
  test: (client: Awaited<ReturnType<typeof connectClient>>["client"]) => Promise<void>,
): Promise<void> {
  await using h = await testHandler(httpConfig(), {
    store: createCatalogStore(counting.catalog),
    limits: { maxBodyBytes: TEST_BODY_BYTES },
  });
  await using session = await connectClient(h.http);
  counting.reset();
  await test(session.client);
}

function refused(code: number, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    assert.ok(error.message.length < 1_000, "the message does not echo the string");
    return true;
  };
}

function assertNoScan(what: string): void {
  assert.deepEqual(
    { skillReads: counting.counts.skillReads, fieldReads: counting.counts.fieldReads },
    { skillReads: 0, fieldReads: 0 },
    `${what}: no skill was read or compared`,
  );
}

function toolText(result: unknown): string {
  return JSON.stringify((result as CallToolResult).content);
}

Deno.test("attack: 4 MiB prompt name is refused without scanning", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.getPrompt({ name: HUGE }),
      refused(-32602, /prompt name is \d+ characters long; at most 255 are accepted/),
    );
    assertNoScan("prompts/get");
    assert.equal(counting.counts.mapLookups, 0, "refused before the lookup");
  });
});

Deno.test("attack: 4 MiB skill name in the generic prompt's argument is refused without scanning", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.getPrompt({ name: "skill", arguments: { name: HUGE } }),
      refused(-32602, /argument "name" is \d+ characters long; at most 255/),
    );
    assertNoScan("prompts/get skill");
    assert.equal(counting.counts.mapLookups, 0);
  });
});

Deno.test("attack: a 255-character unknown prompt name is looked up once in the Map, suggestions from the index", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.getPrompt({ name: "z".repeat(255) }),
      refused(-32602, /Unknown prompt .*prompts served include: skill, skill-00000/),
    );
    assertNoScan("prompts/get miss");
    assert.ok(counting.counts.mapLookups <= 2, `${counting.counts.mapLookups} lookups`);
  });
});

Deno.test("attack: 4 MiB prompts/list cursor is refused before decoding", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.listPrompts({ cursor: HUGE }),
      refused(-32602, /cursor is \d+ characters long; at most 8192/),
    );
    assertNoScan("prompts/list");
  });
});

Deno.test("attack: 4 MiB completion value is refused; a normal completion reads the precomputed index", async () => {
  await withClient(async (client) => {
    const ref = { type: "ref/prompt" as const, name: "skill" };
    await assert.rejects(
      client.complete({ ref, argument: { name: "name", value: HUGE } }),
      refused(-32602, /argument value is \d+ characters long; at most 1024/),
    );
    const template = { type: "ref/resource" as const, uri: "skill://{name}/{+path}" };
    await assert.rejects(
      client.complete({
        ref: template,
        argument: { name: "path", value: "" },
        context: { arguments: { name: HUGE } },
      }),
      refused(-32602, /context argument name is \d+ characters long; at most 255/),
    );
    await assert.rejects(
      client.complete({
        ref: { type: "ref/resource", uri: HUGE },
        argument: { name: "x", value: "" },
      }),
      refused(-32602, /reference URI is \d+ characters long; at most 8192/),
    );
    assertNoScan("completion/complete refusals");
    assert.equal(counting.counts.mapLookups, 0);
    const answer = await client.complete({ ref, argument: { name: "name", value: "SKILL-0" } });
    assert.equal(answer.completion.values.length, 100);
    assert.equal(answer.completion.total, SKILLS);
    assert.equal(answer.completion.hasMore, true);
    assertNoScan("completion over the index");
  });
});

Deno.test("attack: 4 MiB resources/read URI is refused without a lookup", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.readResource({ uri: `skill://skill-00001/${HUGE}` }),
      refused(-32602, /longer than 8192 characters/),
    );
    assertNoScan("resources/read");
    assert.equal(counting.counts.mapLookups, 0);
  });
});

Deno.test("attack: 4 MiB resources/subscribe URI is refused without a lookup", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.subscribeResource({ uri: `skill://skill-00001/${HUGE}` }),
      refused(-32602, /longer than 8192 characters/),
    );
    await client.unsubscribeResource({ uri: `skill://skill-00001/${HUGE}` });
    assertNoScan("resources/subscribe");
    assert.equal(counting.counts.mapLookups, 0);
  });
});

Deno.test("attack: 4 MiB resources/list cursor is refused before decoding", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.listResources({ cursor: HUGE }),
      refused(-32602, /cursor is \d+ characters long; at most 8192/),
    );
    assertNoScan("resources/list");
  });
});

Deno.test("attack: 4 MiB skills/list cursor, skills/get URI and resources/directory/read URI are refused without a lookup", async () => {
  await withClient(async (client) => {
    const tooBig = refused(-32602, /Too big|at most|<=8192/i);
    await assert.rejects(looseRequest(client, "skills/list", { cursor: HUGE }), tooBig);
    await assert.rejects(looseRequest(client, "skills/get", { uri: HUGE }), tooBig);
    await assert.rejects(
      looseRequest(client, "resources/directory/read", { uri: HUGE }),
      tooBig,
    );
    await assert.rejects(
      looseRequest(client, "resources/directory/read", {
        uri: "skill://skill-00001",
        cursor: HUGE,
      }),
      tooBig,
    );
    assertNoScan("skills extension");
    assert.equal(counting.counts.mapLookups, 0);
  });
});

Deno.test("attack: 4 MiB tool name in tools/call is refused without echoing it", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.callTool({ name: HUGE, arguments: {} }),
      refused(-32602, /tool name is \d+ characters long; at most 128/),
    );
    assertNoScan("tools/call");
  });
});

Deno.test("attack: 4 MiB skill name in skill_load, skill_file and skill_run is refused without a lookup", async () => {
  await withClient(async (client) => {
    const calls = [
      { name: "skill_load", arguments: { name: HUGE } },
      { name: "skill_file", arguments: { name: HUGE, paths: ["SKILL.md"] } },
      { name: "skill_file", arguments: { name: "skill-00001", paths: [HUGE] } },
      { name: "skill_run", arguments: { name: HUGE, script: "x.sh" } },
    ];
    for (const call of calls) {
      const result = await client.callTool(call) as CallToolResult;
      assert.equal(result.isError, true, call.name);
      const text = toolText(result);
      assert.match(text, /INVALID_ARGUMENTS/, call.name);
      assert.match(text, /255|1024/, `${call.name} names the cap`);
      assert.ok(text.length < 2_000, `${call.name} does not echo the string`);
    }
    assertNoScan("skill tools");
    assert.equal(counting.counts.mapLookups, 0);
  });
});

Deno.test("attack: 4 MiB skill_list cursor and query are refused; a query reads the lowercase index", async () => {
  await withClient(async (client) => {
    for (const args of [{ cursor: HUGE }, { query: HUGE }]) {
      const result = await client.callTool({ name: "skill_list", arguments: args });
      assert.equal((result as CallToolResult).isError, true);
      assert.match(toolText(result), /INVALID_ARGUMENTS/);
    }
    assertNoScan("skill_list refusals");
    const found = await client.callTool({
      name: "skill_list",
      arguments: { query: "SKILL-0000", limit: 5 },
    }) as CallToolResult;
    assert.equal((found.structuredContent as { total: number }).total, 10);
    assert.ok(
      counting.counts.skillReads <= 10 + 5 * 2,
      `only matches are read, not every skill (${counting.counts.skillReads} reads)`,
    );
  });
});

Deno.test("attack: a 255-character unknown skill name in skill_load suggests from the index without a substring scan", async () => {
  await withClient(async (client) => {
    const result = await client.callTool({
      name: "skill_load",
      arguments: { name: "q".repeat(255) },
    }) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(toolText(result), /SKILL_NOT_FOUND/);
    assert.match(toolText(result), /skill-00000/);
    assertNoScan("skill_load miss");
    assert.equal(counting.counts.mapLookups, 1);
  });
});
