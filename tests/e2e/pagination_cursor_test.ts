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
