/**
 * Malformed params of a spec method get -32602 Invalid params, naming the
 * param, never -32603 with a schema dump (review n8). The rule wraps SDK
 * hooks (`src/mcp/invalid_params.ts`: `setRequestHandler`, `_wrapHandler`),
 * so it is checked end to end against the real program with each real client
 * line (the 1.32.x client in `pagination_cursor_test.ts`; here the 2.4.x
 * client, over `initialize` and over the 2026-07-28 revision): an SDK change
 * that bypasses or breaks the hooks fails here, not in a client's hands.
 */

import assert from "node:assert/strict";
import * as z from "zod";
import { REPO_ROOT } from "../support/program.ts";
import { connectStdioV2 } from "../support/program_v2.ts";
import { ProtocolErrorV2 } from "../support/sdk_v2_client.ts";

for (const era of ["initialize", "2026-07-28"] as const) {
  Deno.test(`the 2.x client (${era}): malformed params of spec methods get -32602 naming the param, not -32603`, async () => {
    await using session = await connectStdioV2(["serve", `${REPO_ROOT}examples/skills`], {
      modern: era === "2026-07-28",
    });
    const refusal = async (method: string, params: Record<string, unknown>) => {
      const error = await session.client.request({ method, params } as never, z.any() as never)
        .then(() => null, (caught: unknown) => caught);
      assert.ok(error instanceof ProtocolErrorV2, `${method}: ${error}`);
      return error;
    };
    for (const method of ["resources/list", "prompts/list"]) {
      const error = await refusal(method, { cursor: 5 });
      assert.equal(error.code, -32602, `${method}: ${error.message}`);
      assert.match(error.message, /cursor: .*expected string/);
      assert.doesNotMatch(error.message, /"code"|\[\s*\{/, "a schema dump");
    }
    const read = await refusal("resources/read", { uri: 5 });
    assert.equal(read.code, -32602, read.message);
    assert.match(read.message, /Invalid params for resources\/read: uri: /);
    const prompt = await refusal("prompts/get", { name: 5 });
    assert.equal(prompt.code, -32602, prompt.message);
    assert.match(prompt.message, /Invalid params for prompts\/get: name: /);
  });
}
