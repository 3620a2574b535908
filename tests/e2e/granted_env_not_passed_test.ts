/**
 * Behaviour (r12, F11): a name the owner's grant row gives a script, which the
 * script then does not receive (unset in skillgate's environment, or withheld
 * by the trusted part's own check), is said in `skill_run`'s answer
 * (`envNote`) instead of the script silently running without it.
 */
import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { makeTree } from "../skills/_tree.ts";

const SKILL_MD = "---\nname: honest\ndescription: Prints two granted values.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/print.sh\n      interpreter: sh\n" +
  "      env: [DEMO_VALUE, DEMO_UNSET]\n---\n# Honest\n";

Deno.test("skill_run says which granted names the script did not receive", async () => {
  await using tree = await makeTree({
    "root/honest/SKILL.md": SKILL_MD,
    "root/honest/scripts/print.sh": 'printf "value=%s unset=%s" "$DEMO_VALUE" "$DEMO_UNSET"\n',
  });
  await using connected = await connectStdio(["serve", tree.at("root"), "--no-config"], {
    env: {
      MCP_CONFIRM_MODE: "auto",
      DEMO_VALUE: "granted-7f3a",
      MCP_SKILL_RUN: JSON.stringify([
        { skill: "honest", script: "scripts/print.sh", env: ["DEMO_VALUE", "DEMO_UNSET"] },
      ]),
    },
  });
  const answer = toolJson(
    await connected.call("skill_run", { name: "honest", script: "scripts/print.sh" }),
  );
  assert.equal(answer.stdout, "value=granted-7f3a unset=", JSON.stringify(answer));
  assert.deepEqual((answer.env as string[]).filter((name) => name.startsWith("DEMO_")), [
    "DEMO_VALUE",
  ]);
  assert.match(String(answer.envNote), /Granted but not passed: DEMO_UNSET\b/);
  assert.ok(!String(answer.envNote).includes("DEMO_VALUE"), "a passed name is not listed");
});
