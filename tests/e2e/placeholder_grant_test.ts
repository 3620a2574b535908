/**
 * End-to-end attack: a host's configuration passes `MCP_SKILL_RUN=${MCP_SKILL_RUN}`
 * unsubstituted to a standalone skillgate. Read as unset, every declaration
 * would stand and a skill declaring `API_KEY` would receive the user's key.
 * The placeholder means the owner meant to grant something: nothing runs,
 * and start-up, `skill_list` and `skill_run` say why. The same holds for the
 * other forms hosts write (`${env:MCP_SKILL_RUN}`, the Cursor / VS Code form,
 * and `${MCP_SKILL_RUN:-}`), and an HTTP token left as `${env:T}` stops the
 * start instead of serving without a token.
 */

import assert from "node:assert/strict";
import type { SkillListAnswer } from "../../src/mcp/tools/skill_list.ts";
import { freePort } from "../support/http_program.ts";
import { connectStdio, runProgram } from "../support/program.ts";
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

for (const value of ["", "  "]) {
  Deno.test(`attack: MCP_SKILL_RUN=${JSON.stringify(value)} (a host substituted an unset variable) runs nothing and says why`, async () => {
    await using tree = await greedyRoot();
    await using session = await connectStdio(["serve", tree.path], {
      env: { API_KEY: KEY, MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: value },
    });
    const ran = await session.call("skill_run", { name: "greedy", script: "scripts/take.sh" });
    assert.equal(ran.isError, true);
    const refusal = toolErrorJson(ran);
    assert.equal(refusal.error, "SCRIPT_NOT_GRANTED");
    assert.match(refusal.hint, /MCP_SKILL_RUN is set but empty/);
    assert.ok(!JSON.stringify(ran).includes(KEY));
    const list = (await session.call("skill_list", {})).structuredContent as SkillListAnswer;
    assert.equal(list.grant?.from, "blank", 'not "declaration"');
    assert.match(session.stderr(), /skillgate: no script will run: MCP_SKILL_RUN is set but empty/);
    const report = await runProgram(["list", tree.path, "--json"], {
      env: { MCP_SKILL_RUN: value },
    });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /"from": "blank"/);
  });
}

for (const form of ["${env:MCP_SKILL_RUN}", "${MCP_SKILL_RUN:-}"]) {
  Deno.test(`attack: MCP_SKILL_RUN=${form} (a host's other placeholder form) runs nothing`, async () => {
    await using tree = await greedyRoot();
    await using session = await connectStdio(["serve", tree.path], {
      env: { API_KEY: KEY, MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: form },
    });
    const ran = await session.call("skill_run", { name: "greedy", script: "scripts/take.sh" });
    assert.equal(ran.isError, true);
    assert.equal(toolErrorJson(ran).error, "SCRIPT_NOT_GRANTED");
    assert.ok(!JSON.stringify(ran).includes(KEY));
    const list = (await session.call("skill_list", {})).structuredContent as SkillListAnswer;
    assert.equal(list.grant?.from, "unsubstituted", 'not "declaration"');
    assert.match(session.stderr(), /skillgate: no script will run: MCP_SKILL_RUN holds/);
  });
}

Deno.test("attack: SKILLGATE_HTTP_TOKEN=${env:T} stops an HTTP start (exit 2) instead of serving open", async () => {
  await using tree = await greedyRoot();
  const refused = await runProgram(["serve", tree.path, `--http=${freePort()}`], {
    env: { SKILLGATE_HTTP_TOKEN: "${env:T}" },
  });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /SKILLGATE_HTTP_TOKEN holds an unsubstituted placeholder/);
});

Deno.test("an unparseable MCP_SKILL_RUN is said on stderr at start-up, as a blank one is", async () => {
  await using tree = await greedyRoot();
  await using session = await connectStdio(["serve", tree.path], {
    env: { API_KEY: KEY, MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: "not json" },
  });
  const ran = await session.call("skill_run", { name: "greedy", script: "scripts/take.sh" });
  assert.equal(ran.isError, true);
  assert.equal(toolErrorJson(ran).error, "SCRIPT_NOT_GRANTED");
  assert.match(session.stderr(), /skillgate: no script will run: MCP_SKILL_RUN is not valid JSON/);
});
