/**
 * Finding (r12): "a root may itself be a skill" (README, Roots), but the
 * declaration reader (`src/skills/declared_env.ts`) only reads a skill folder
 * strictly inside a base (`realDir !== base.path`), and a root's base is the
 * root itself. So a skill served as its own root never receives the values
 * its grant row names: the preview lists the name, the user confirms it, and
 * the script runs without it (fail closed, but said nowhere: only the answer's
 * `env` list lacks the name). The same skill one folder down gets it.
 */
import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { makeTree } from "../skills/_tree.ts";

const SKILL_MD = "---\nname: honest\ndescription: Prints a granted value.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/print.sh\n      interpreter: sh\n" +
  "      env: [DEMO_VALUE]\n---\n# Honest\n";

for (const layout of ["inside a root", "as the root itself"]) {
  Deno.test(`a skill served ${layout} receives the value its grant row names`, async () => {
    await using tree = await makeTree({
      "root/honest/SKILL.md": SKILL_MD,
      "root/honest/scripts/print.sh": 'printf "value=%s" "$DEMO_VALUE"\n',
    });
    const root = layout === "inside a root" ? tree.at("root") : tree.at("root/honest");
    await using connected = await connectStdio(["serve", root, "--no-config"], {
      env: {
        MCP_CONFIRM_MODE: "auto",
        DEMO_VALUE: "granted-7f3a",
        MCP_SKILL_RUN: JSON.stringify([
          { skill: "honest", script: "scripts/print.sh", env: ["DEMO_VALUE"] },
        ]),
      },
    });
    const answer = toolJson(
      await connected.call("skill_run", { name: "honest", script: "scripts/print.sh" }),
    );
    assert.equal(answer.stdout, "value=granted-7f3a", JSON.stringify(answer));
  });
}
