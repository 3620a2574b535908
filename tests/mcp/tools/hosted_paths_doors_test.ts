/**
 * Hosted (newcomer 7, 05:06): the other doors that read a skill's files
 * (skill_file, resources/read, resources/list, prompts/get, completions) name
 * no host folder either, for a file that leads outside the skill too.
 */

import assert from "node:assert/strict";
import { makeTree, skillMd } from "../../skills/_tree.ts";
import { connectStdio } from "../../support/program.ts";

Deno.test("attack: hosted, skill_file, resources and prompts name no host folder, an escaping file included", async () => {
  await using tree = await makeTree({
    "pdf/SKILL.md": skillMd("pdf"),
    "pdf/notes.md": "notes\n",
  });
  const outside = await Deno.makeTempDir({ prefix: "s25-out-" });
  try {
    await Deno.writeTextFile(`${outside}/secret.md`, "secret\n");
    await Deno.symlink(`${outside}/secret.md`, tree.at("pdf/leak.md"));
    await using session = await connectStdio(["serve"], { env: { MCP_SKILLS_PATH: tree.path } });
    const answers: unknown[] = [
      await session.call("skill_file", { name: "pdf", paths: ["notes.md", "leak.md", "../x"] }),
      await session.client.listResources(),
      await session.client.readResource({ uri: "skill://pdf/notes.md" }).catch((e) => String(e)),
      await session.client.readResource({ uri: "skill://pdf/leak.md" }).catch((e) => String(e)),
      await session.client.listPrompts(),
      await session.client.getPrompt({ name: "pdf" }).catch((e) => String(e)),
    ];
    for (const answer of answers) {
      const text = JSON.stringify(answer);
      assert.ok(!text.includes(tree.path), text);
      assert.ok(!text.includes(outside), text);
    }
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
