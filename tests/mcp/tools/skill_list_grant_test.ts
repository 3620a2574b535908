/**
 * End-to-end: what a client learns about the owner's grant (`MCP_SKILL_RUN`)
 * through `skill_list`, `skill_load` and `skill_run`, against what the owner
 * sees with `skillgate list`.
 */

import assert from "node:assert/strict";
import type { SkillListAnswer } from "../../../src/mcp/tools/skill_list.ts";
import {
  REDACTED_GRANT_ROW_DETAIL,
  REDACTED_GRANT_VALUE_DETAIL,
} from "../../../src/mcp/tools/redact_grant.ts";
import { connectStdio, runProgram } from "../../support/program.ts";
import { makeTree, type Tree } from "../../skills/_tree.ts";

/** Words of the owner's allow-list that no client may see. */
const SECRET_WORDS = ["internal-deploy", "deploy.sh", "AWS_SECRET_ACCESS_KEY", "sneaky-key"];

/** The reviewer's grant: a row for an unserved skill, an undeclared env name, a bad row. */
const LEAKY_GRANT = JSON.stringify([
  { skill: "internal-deploy", script: "deploy.sh", env: ["AWS_SECRET_ACCESS_KEY"] },
  { skill: "demo", script: "scripts/hello.sh", env: ["AWS_SECRET_ACCESS_KEY"] },
  { skill: "demo", script: "scripts/hello.sh", "sneaky-key": true },
  { skill: "other", script: "scripts/other.sh", env: ["OTHER_TOKEN"] },
]);

async function makeRoot(): Promise<Tree> {
  const declare = (script: string, env?: string) =>
    `mcp-host:\n  version: 1\n  run:\n    - script: ${script}\n      interpreter: sh\n` +
    (env === undefined ? "" : `      env: [${env}]\n`);
  return await makeTree({
    "demo/SKILL.md": `---\nname: demo\ndescription: Demo skill.\n${
      declare("scripts/hello.sh")
    }---\n# Demo\n`,
    "demo/scripts/hello.sh": "echo hello\n",
    "other/SKILL.md": `---\nname: other\ndescription: Other skill.\n${
      declare("scripts/other.sh", "OTHER_TOKEN")
    }---\n# Other\n`,
    "other/scripts/other.sh": "echo other\n",
  });
}

function assertNamesNone(text: string, words: readonly string[]): void {
  for (const word of words) assert.ok(!text.includes(word), `"${word}" leaked: ${text}`);
}

Deno.test("skill_list never shows a client the owner's grant rows, skills or env names", async () => {
  await using tree = await makeRoot();
  await using session = await connectStdio(["serve", tree.path], {
    env: { MCP_SKILL_RUN: LEAKY_GRANT, MCP_CONFIRM_MODE: "refuse" },
  });
  const list = (await session.call("skill_list", {})).structuredContent as SkillListAnswer;
  const grantProblems = list.problems.filter((problem) => problem.reason === "grant");
  assert.equal(grantProblems.length, 3, "one per row that grants nothing, count kept");
  for (const problem of grantProblems) {
    assert.equal(problem.detail, REDACTED_GRANT_ROW_DETAIL);
    assert.equal(problem.severity, "error");
  }
  assertNamesNone(JSON.stringify(list), SECRET_WORDS);
  const demo = list.skills.find((skill) => skill.name === "demo");
  assert.deepEqual(demo?.ungrantedScripts?.map((entry) => entry.script), ["scripts/hello.sh"]);

  const load = await session.call("skill_load", { name: "demo" });
  assertNamesNone(JSON.stringify(load), [...SECRET_WORDS, "OTHER_TOKEN"]);
  const run = await session.call("skill_run", { name: "demo", script: "scripts/hello.sh" });
  assert.equal(run.isError, true);
  assert.match(JSON.stringify(run.structuredContent ?? run.content), /SCRIPT_NOT_GRANTED/);
  assertNamesNone(JSON.stringify(run), [...SECRET_WORDS, "OTHER_TOKEN"]);
});

Deno.test("skill_list hides an unreadable grant's parse error, which quotes the value", async () => {
  await using tree = await makeRoot();
  const broken = '[{"skill": "internal-deploy", "env": ["AWS_SECRET_ACCESS_KEY"] oops';
  await using session = await connectStdio(["serve", tree.path], {
    env: { MCP_SKILL_RUN: broken, MCP_CONFIRM_MODE: "refuse" },
  });
  const list = (await session.call("skill_list", {})).structuredContent as SkillListAnswer;
  assert.equal(list.grant?.error, REDACTED_GRANT_VALUE_DETAIL);
  const grantProblems = list.problems.filter((problem) => problem.reason === "grant");
  assert.deepEqual(grantProblems.map((problem) => problem.detail), [REDACTED_GRANT_VALUE_DETAIL]);
  assertNamesNone(JSON.stringify(list), SECRET_WORDS);
});

Deno.test("skillgate list shows the owner every grant problem in full", async () => {
  await using tree = await makeRoot();
  const env = { MCP_SKILL_RUN: LEAKY_GRANT, MCP_CONFIRM_MODE: "refuse" };
  const listed = await runProgram(["list", tree.path, "--json"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const answer = JSON.parse(listed.stdout) as SkillListAnswer;
  const details = answer.problems.filter((problem) => problem.reason === "grant")
    .map((problem) => problem.detail);
  assert.equal(details.length, 3);
  const all = details.join("\n");
  assert.match(all, /Row 0 \(skill "internal-deploy", script "deploy\.sh"\) grants nothing/);
  assert.match(all, /Row 1 .* does not declare "AWS_SECRET_ACCESS_KEY"/);
  assert.match(all, /Row 2 grants nothing: .*"sneaky-key"/);
  const table = await runProgram(["list", tree.path], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /internal-deploy/);
  assert.match(table.stdout, /AWS_SECRET_ACCESS_KEY/);

  const broken = await runProgram(["list", tree.path, "--json"], {
    env: { MCP_SKILL_RUN: "[oops", MCP_CONFIRM_MODE: "refuse" },
  });
  const brokenAnswer = JSON.parse(broken.stdout) as SkillListAnswer;
  assert.match(brokenAnswer.grant?.error ?? "", /^MCP_SKILL_RUN is not valid JSON \(/);
});
