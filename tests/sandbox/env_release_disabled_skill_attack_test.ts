/**
 * Attack (r13, seen and left alone in session 9): the owner disables a skill
 * in overrides.json (`skillgate override NAME --disable`), so the worker no
 * longer serves it and an honest worker never asks for its values; but the
 * trusted part's release (`src/sandbox/env_release_service.ts`) never saw
 * the overrides, so a compromised worker that asked still got the granted
 * values. The release now applies the overlay's own rule (`isDisabled`,
 * `src/skills/overrides.ts`) to the overrides in force. The test-only
 * hostile worker (`tests/support/env_claim_worker.ts`) asks.
 */
import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const HONEST = "---\nname: honest\ndescription: Declares API_KEY for one script.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/take.sh\n      interpreter: sh\n" +
  "      env: [API_KEY]\n---\nBody\n";

async function firstReply(disabled: boolean): Promise<Record<string, string>> {
  await using tree = await makeTree({
    "root/honest/SKILL.md": HONEST,
    "root/honest/scripts/take.sh": "echo hi\n",
    "xdg": { dir: true },
  });
  const env = {
    XDG_CONFIG_HOME: tree.at("xdg"),
    API_KEY: "granted-value",
    MCP_SKILL_RUN: JSON.stringify([{
      skill: "honest",
      script: "scripts/take.sh",
      env: ["API_KEY"],
    }]),
  };
  if (disabled) {
    const override = await runProgram(["override", "honest", "--disable"], { env });
    assert.equal(override.code, 0, override.stderr);
  }
  const result = await runProgram(["serve", "--isolation=group", tree.at("root")], {
    entry: "tests/support/env_claim_main.ts",
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const { replies } = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
    replies: Record<string, string>[];
  };
  return replies[0] ?? {};
}

Deno.test("attack: a worker that asks for a skill the owner disabled in overrides.json gets no granted value", async () => {
  assert.deepEqual(
    await firstReply(true),
    {},
    "the owner disabled the skill, yet the trusted part released its granted value",
  );
  // The same request for the skill left enabled is released: the refusal is the override's.
  assert.deepEqual(await firstReply(false), { API_KEY: "granted-value" });
});
