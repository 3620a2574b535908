/**
 * Attack (newcomer n9, F7): a declared script that eats memory. What
 * skillgate bounds: the sandbox's private /tmp (a tmpfs, so memory) has a size
 * cap, and a process-group script is the kernel's first choice when memory
 * runs out (`oom_score_adj` 1000), so the OOM killer ends it before skillgate
 * or its client. No bomb is set off here: the test reads the bounds from
 * inside the run. Sandbox part skipped locally (one stderr line) when no
 * sandbox can be built; in CI a missing sandbox fails.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { sandboxOrSkip } from "../support/isolation_modes.ts";
import { makeTree } from "../skills/_tree.ts";
import { SANDBOX_TMP_MAX_BYTES } from "../../src/scripts/sandbox/layout.ts";

const sandbox = await sandboxOrSkip("tests/e2e/script_memory_bounds_test.ts");

const SKILL_MD = "---\nname: hungry\ndescription: Reads its own bounds.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/bounds.sh\n      interpreter: sh\n---\n# Hungry\n";

async function world() {
  return await makeTree({
    "skills/hungry/SKILL.md": SKILL_MD,
    "skills/hungry/scripts/bounds.sh":
      'echo "oom=$(cat /proc/self/oom_score_adj)"\ndf -k /tmp | tail -n 1\n',
  });
}

Deno.test("attack: a process-group script that eats memory is the OOM killer's first choice", async () => {
  await using tree = await world();
  await using session = await connectStdio(
    ["serve", tree.at("skills"), "--isolation=group", "--no-config"],
    { env: { MCP_CONFIRM_MODE: "auto" } },
  );
  const answer = toolJson(
    await session.call("skill_run", { name: "hungry", script: "scripts/bounds.sh" }),
  );
  assert.equal(answer.exitCode, 0, String(answer.stderr));
  assert.match(String(answer.stdout), /^oom=1000$/m);
});

Deno.test({
  name: "attack: a sandboxed script that fills its private /tmp meets the size cap",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    await using session = await connectStdio(["serve", tree.at("skills"), "--no-config"], {
      env: { MCP_CONFIRM_MODE: "auto" },
    });
    const answer = toolJson(
      await session.call("skill_run", { name: "hungry", script: "scripts/bounds.sh" }),
    );
    assert.equal(answer.isolation, "sandbox");
    assert.equal(answer.exitCode, 0, String(answer.stderr));
    // df -k: "tmpfs <1K-blocks> <used> <available> <use%> /tmp".
    const blocks = Number(String(answer.stdout).trim().split("\n").at(-1)?.split(/\s+/)[1]);
    assert.equal(blocks, SANDBOX_TMP_MAX_BYTES / 1024, String(answer.stdout));
  },
});
