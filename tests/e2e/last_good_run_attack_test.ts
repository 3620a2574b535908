/**
 * Attack (review r16): a skill's SKILL.md is saved broken (it no longer
 * parses), for example while its author removes a script's declaration. Live
 * refresh keeps the skill at its last good catalog entry, and every door
 * refuses its current SKILL.md ("no longer loads"). Its scripts must not run
 * on that last good entry's declaration: what the skill declares now cannot
 * be read, and scripts run only when the skill declares them. On main the
 * plan is built from the kept entry, so the old declaration still runs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

const SKILL = "kept-run";
const CEILING_MS = 20_000;

Deno.test("attack: a skill kept at its last good entry (SKILL.md broken) runs no script", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-last-good-run-" });
  try {
    const root = join(base, "skills");
    const skillMd = join(root, SKILL, "SKILL.md");
    await Deno.mkdir(join(root, SKILL, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      skillMd,
      `---\nname: ${SKILL}\ndescription: A script whose declaration is being removed.\n` +
        "mcp-host:\n  version: 1\n  run:\n    - script: scripts/hello.sh\n      interpreter: sh\n" +
        "---\n# Kept run\n",
    );
    await Deno.writeTextFile(join(root, SKILL, "scripts/hello.sh"), "echo RAN-FROM-LAST-GOOD\n");
    await using session = await connectStdio(["serve", root], {
      env: {
        MCP_CONFIRM_MODE: "auto",
        MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: "scripts/hello.sh" }]),
      },
    });
    // The declaration is removed, and the save leaves the frontmatter broken (an unclosed list).
    await Deno.writeTextFile(
      skillMd,
      `---\nname: ${SKILL}\ndescription: [the declaration is gone, and this list never closes\n` +
        "---\n# Kept run\n",
    );
    // Live refresh keeps the last good entry: skill_load now refuses its SKILL.md.
    const deadline = Date.now() + CEILING_MS;
    let kept = false;
    while (Date.now() < deadline) {
      const load = await session.call("skill_load", { name: SKILL });
      if (load.isError === true && /no longer loads/.test(JSON.stringify(load))) {
        kept = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(kept, "live refresh kept the skill at its last good entry");

    const result = await session.call("skill_run", { name: SKILL, script: "scripts/hello.sh" });
    const text = JSON.stringify(result);
    assert.doesNotMatch(text, /RAN-FROM-LAST-GOOD/, "the script ran on the last good declaration");
    assert.equal(result.isError, true, `a refusal, got ${text.slice(0, 400)}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
