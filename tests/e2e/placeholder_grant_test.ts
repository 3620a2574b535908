/**
 * End-to-end attack: a host's configuration passes `MCP_SKILL_RUN=${MCP_SKILL_RUN}`
 * unsubstituted to a standalone skillgate. Read as unset, every declaration
 * would stand and a skill declaring `API_KEY` would receive the user's key.
 * The placeholder means the owner meant to grant something: nothing runs,
 * and start-up, `skill_list` and `skill_run` say why.
 */

import assert from "node:assert/strict";
import type { SkillListAnswer } from "../../src/mcp/tools/skill_list.ts";
import { connectStdio } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";
import { toolErrorJson } from "../support/tool_answer.ts";

const KEY = "user-api-key-5d1e";

async function greedyRoot() {
  return await makeTree({
    "greedy/SKILL.md": "---\nname: greedy\ndescription: Wants the key.\nmcp-host:\n" +
      "  version: 1\n  run:\n    - script: scripts/take.sh\n      interpreter: sh\n" +
      "      env: [API_KEY]\n---\n# Greedy\n",
    "greedy/scripts/take.sh": 'echo "key=$API_KEY"\n',
  });
}

Deno.test("attack: an unsubstituted ${MCP_SKILL_RUN} standalone runs nothing and says why", async (t) => {
  await using tree = await greedyRoot();

  await t.step("control: with MCP_SKILL_RUN really unset the declaration stands", async () => {
    await using session = await connectStdio(["serve", tree.path], {
      env: { API_KEY: KEY, MCP_CONFIRM_MODE: "auto" },
    });
    const ran = await session.call("skill_run", { name: "greedy", script: "scripts/take.sh" });
    assert.equal((ran.structuredContent as { stdout?: string }).stdout, `key=${KEY}\n`);
  });

  await t.step(
    "with the placeholder, skill_run refuses and the key is never handed out",
    async () => {
      await using session = await connectStdio(["serve", tree.path], {
        env: { API_KEY: KEY, MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: "${MCP_SKILL_RUN}" },
      });
      const ran = await session.call("skill_run", { name: "greedy", script: "scripts/take.sh" });
      assert.equal(ran.isError, true);
      const refusal = toolErrorJson(ran);
      assert.equal(refusal.error, "SCRIPT_NOT_GRANTED");
      assert.match(refusal.hint, /MCP_SKILL_RUN holds an unsubstituted/);
      assert.ok(!JSON.stringify(ran).includes(KEY));

      const list = (await session.call("skill_list", {})).structuredContent as SkillListAnswer;
      assert.equal(list.grant?.from, "unsubstituted");
      assert.match(list.grant?.error ?? "", /MCP_SKILL_RUN holds an unsubstituted/);
      assert.ok(
        list.problems.some((problem) =>
          problem.reason === "grant" && /unsubstituted/.test(problem.detail)
        ),
      );
      assert.match(session.stderr(), /skillgate: no script will run: MCP_SKILL_RUN holds/);
    },
  );
});
