/**
 * End-to-end over stdio with the real SDK client: a pagination cursor the
 * server did not issue, or one that is not a string, gets -32602 Invalid
 * params (never -32603 Internal error with a schema dump) and one message
 * on every list: what was wrong, and how to go on.
 */

import assert from "node:assert/strict";
import * as z from "zod";
import { connectStdio, REPO_ROOT } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { McpError } from "../support/sdk_client.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const LISTS = ["resources/list", "prompts/list", "skills/list"] as const;

Deno.test("an invalid pagination cursor gets -32602 with what was wrong and how to go on, on every list", async (t) => {
  await using session = await connectStdio(["serve", `${REPO_ROOT}examples/skills`], {
    capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } } as never,
  });
  const refusal = async (method: string, params: Record<string, unknown>) => {
    const error = await session.client.request({ method, params } as never, z.any() as never)
      .then(() => null, (caught: unknown) => caught);
    assert.ok(error instanceof McpError, `${method}: ${error}`);
    return error;
  };
  for (const method of LISTS) {
    await t.step(`${method}: a cursor this server did not issue`, async () => {
      const error = await refusal(method, { cursor: "not-a-cursor-of-ours" });
      assert.equal(error.code, -32602);
      assert.match(error.message, /The cursor is not one this server issued: pass back/);
      assert.ok(error.message.includes(`call ${method} without a cursor`), error.message);
    });
    await t.step(`${method}: a cursor that is not a string`, async () => {
      const error = await refusal(method, { cursor: 5 });
      assert.equal(error.code, -32602, error.message);
      assert.match(error.message, /cursor: .*expected string.*nextCursor gave/);
      assert.doesNotMatch(error.message, /"code"|\[\s*\{/);
    });
  }
  await t.step("resources/read with a uri that is not a string is -32602 too", async () => {
    const error = await refusal("resources/read", { uri: 5 });
    assert.equal(error.code, -32602);
    assert.match(error.message, /^MCP error -32602: Invalid params for resources\/read: uri: /);
  });
  await t.step("skill_list: a foreign cursor's hint says what to pass back", async () => {
    const answer = toolJson(await session.call("skill_list", { cursor: "not-a-cursor-of-ours" }));
    assert.equal(answer.error, "INVALID_ARGUMENTS");
    assert.match(String(answer.hint), /nextCursor exactly as received, or call skill_list without/);
  });
});

Deno.test("a cursor of one list is refused by every other list, never misread as its own (review hR L4)", async (t) => {
  // 51 skills: skills/list (50 a page) gives a cursor; skill_list with limit 1 gives one too.
  const entries: Record<string, string> = {};
  for (let i = 0; i < 51; i++) {
    const name = `s${String(i).padStart(3, "0")}`;
    entries[`${name}/SKILL.md`] = skillMd(name);
  }
  await using tree = await makeTree(entries);
  await using session = await connectStdio(["serve", tree.path], {
    capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } } as never,
  });
  const request = (method: string, params: Record<string, unknown>) =>
    session.client.request({ method, params } as never, z.any() as never) as Promise<
      Record<string, unknown>
    >;
  const refusal = async (method: string, params: Record<string, unknown>) => {
    const error = await request(method, params).then(() => null, (caught: unknown) => caught);
    assert.ok(error instanceof McpError, `${method} accepted a foreign cursor: ${error}`);
    assert.equal(error.code, -32602);
    assert.match(error.message, /The cursor is not one this server issued: pass back/);
    assert.ok(error.message.includes(`call ${method} without a cursor`), error.message);
  };
  const skillsCursor = (await request("skills/list", {})).nextCursor;
  assert.equal(typeof skillsCursor, "string");
  const listed = toolJson(await session.call("skill_list", { limit: 1 }));
  const toolCursor = listed.nextCursor;
  assert.equal(typeof toolCursor, "string");
  const resourcesCursor = (await request("resources/list", {})).nextCursor;

  await t.step(
    "skills/list's cursor given to skill_list: a tool error, not an empty last page",
    async () => {
      const answer = toolJson(await session.call("skill_list", { cursor: skillsCursor }));
      assert.equal(answer.error, "INVALID_ARGUMENTS", JSON.stringify(answer));
      assert.equal(answer.message, "The cursor is not one this server issued");
      assert.equal(answer.skills, undefined);
    },
  );
  await t.step("skill_list's cursor given to skills/list: -32602, not page 1 again", async () => {
    await refusal("skills/list", { cursor: toolCursor });
  });
  await t.step("either given to prompts/list and resources/directory/read: -32602", async () => {
    for (const cursor of [skillsCursor, toolCursor]) {
      await refusal("prompts/list", { cursor });
      await refusal("resources/directory/read", { uri: "skill://s000", cursor });
    }
  });
  await t.step(
    "either given to resources/list, and its own given to the others: refused",
    async () => {
      for (const cursor of [skillsCursor, toolCursor]) await refusal("resources/list", { cursor });
      if (typeof resourcesCursor === "string") {
        await refusal("skills/list", { cursor: resourcesCursor });
        const answer = toolJson(await session.call("skill_list", { cursor: resourcesCursor }));
        assert.equal(answer.error, "INVALID_ARGUMENTS");
      }
    },
  );
  await t.step("each list still continues after its own cursor", async () => {
    const second = await request("skills/list", { cursor: skillsCursor });
    assert.deepEqual(
      (second.skills as { uri: string }[]).map((skill) => skill.uri),
      ["skill://s050/SKILL.md"],
    );
    const next = toolJson(await session.call("skill_list", { cursor: toolCursor, limit: 1 }));
    assert.deepEqual((next.skills as { name: string }[]).map((skill) => skill.name), ["s001"]);
  });
});
