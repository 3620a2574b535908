/**
 * Attack (r13, on the r12 F1 fix): the plan and the trusted release now share
 * the row rule (`rowInForce`, `src/scripts/grant.ts`), but not the rule above
 * the rows. With `MCP_CONFIRM_MODE=refuse` the owner refuses every run: the
 * plan blocks each script (`blockedReason`, `src/scripts/plan.ts`), so an
 * honest worker never asks for a value, yet the trusted part's release
 * (`src/sandbox/env_release.ts` `mayRelease`) still hands a worker that asks
 * the granted values. The release exists for the worker that no longer takes
 * the plan's word (its bound must never be wider than the plan); here the
 * test-only hostile worker (`tests/support/env_claim_worker.ts`) asks.
 * (By reading, the same holds for the hosted environ refusal, which also
 * blocks every run. A skill the owner disabled in overrides.json has its own
 * test: env_release_disabled_skill_attack_test.ts.)
 */
import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const HONEST = "---\nname: honest\ndescription: Declares API_KEY for one script.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/take.sh\n      interpreter: sh\n" +
  "      env: [API_KEY]\n---\nBody\n";

Deno.test("attack: with MCP_CONFIRM_MODE=refuse (every run refused) a worker that asks gets no granted value", async () => {
  await using tree = await makeTree({
    "root/honest/SKILL.md": HONEST,
    "root/honest/scripts/take.sh": "echo hi\n",
  });
  const result = await runProgram(["serve", "--isolation=group", `${tree.path}/root`], {
    entry: "tests/support/env_claim_main.ts",
    env: {
      API_KEY: "granted-value",
      MCP_CONFIRM_MODE: "refuse",
      MCP_SKILL_RUN: JSON.stringify([
        { skill: "honest", script: "scripts/take.sh", env: ["API_KEY"] },
      ]),
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const { replies } = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
    replies: Record<string, string>[];
  };
  assert.deepEqual(
    replies[0],
    {},
    "the owner refuses every run, yet the trusted part released the granted value",
  );
});
