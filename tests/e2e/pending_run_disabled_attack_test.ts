/**
 * Attack (review r16): the owner disables a skill (overrides.json
 * `enabled: false`, a narrowing the README says is in force at once) while a
 * `skill_run` of it waits for the user's answer to the confirmation dialog.
 * The user then accepts the dialog they already had on screen. The run must
 * not start: the owner's narrowing was in force before the answer came, and
 * a disabled skill is "not served at all". On main the script runs anyway
 * (from the catalog snapshot taken before the wait; only its granted
 * variables are withheld).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";
import { ElicitRequestSchema } from "../support/sdk_client.ts";

const SKILL = "pending-run";
const CEILING_MS = 20_000;

Deno.test("attack: a skill disabled while its skill_run waits for the user's answer does not run", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-pending-run-" });
  try {
    const root = join(base, "skills");
    await Deno.mkdir(join(root, SKILL, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      join(root, SKILL, "SKILL.md"),
      `---\nname: ${SKILL}\ndescription: A script the owner will disable mid-confirmation.\n` +
        "mcp-host:\n  version: 1\n  run:\n    - script: scripts/hello.sh\n      interpreter: sh\n" +
        "---\n# Pending run\n",
    );
    await Deno.writeTextFile(join(root, SKILL, "scripts/hello.sh"), "echo RAN-AFTER-DISABLE\n");
    const folder = join(base, "config", "skillgate");
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(join(folder, "config.json"), "{}\n");
    const overridesPath = join(folder, "overrides.json");
    await Deno.writeTextFile(overridesPath, JSON.stringify({ skills: {} }));

    let asked = 0;
    let disabledSeen = false;
    await using session = await connectStdio(["serve", root], {
      env: {
        XDG_CONFIG_HOME: join(base, "config"),
        MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: "scripts/hello.sh" }]),
      },
      capabilities: { elicitation: {} },
      beforeConnect: (client) => {
        client.setRequestHandler(ElicitRequestSchema, async () => {
          asked++;
          // The owner disables the skill while the dialog is on screen...
          await Deno.writeTextFile(
            overridesPath,
            JSON.stringify({ skills: { [SKILL]: { enabled: false } } }),
          );
          // ...and it is in force (skill_list no longer shows it) before the user answers.
          const deadline = Date.now() + CEILING_MS;
          while (Date.now() < deadline) {
            const listed = await client.callTool({ name: "skill_list", arguments: {} });
            const skills = (listed.structuredContent as { skills: { name: string }[] }).skills;
            if (!skills.some((skill) => skill.name === SKILL)) {
              disabledSeen = true;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return { action: "accept", content: { run: true } };
        });
      },
    });

    const result = await session.call("skill_run", { name: SKILL, script: "scripts/hello.sh" });
    assert.equal(asked, 1, "the user was asked once");
    assert.ok(disabledSeen, "the disable was in force before the user answered");
    const text = JSON.stringify(result);
    assert.doesNotMatch(text, /RAN-AFTER-DISABLE/, "the disabled skill's script ran");
    assert.equal(result.isError, true, `a refusal, got ${text.slice(0, 400)}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
