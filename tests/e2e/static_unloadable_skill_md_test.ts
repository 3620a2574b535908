/**
 * Under `--static` the catalog is frozen: a skill whose SKILL.md stops
 * loading stays listed. Every door then says the skill is unavailable and
 * why, and none sends the client to list again to see it gone (review hR L5:
 * `skill_load` answered `SKILL_NOT_FOUND` with "call skill_list", which still
 * listed it: a loop).
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";
import { McpError } from "../support/sdk_client.ts";

Deno.test("--static: a listed skill whose SKILL.md stopped loading is SKILL_UNAVAILABLE at every tool door, never 'call skill_list'", async (t) => {
  await using tree = await makeTree({
    "kept/SKILL.md": skillMd("kept"),
    "other/SKILL.md": skillMd("other"),
    "other/notes.md": "notes\n",
  });
  // A client that shows MCP apps is offered skill_browse_detail (the skills view's door).
  await using session = await connectStdio(["serve", tree.path, "--static", "--tools=always"], {
    capabilities: {
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
    } as never,
  });
  // SKILL.md becomes a folder: no longer a regular file, so it cannot be read.
  await Deno.remove(tree.at("other/SKILL.md"));
  await Deno.mkdir(tree.at("other/SKILL.md"));
  const listed = toolJson(await session.call("skill_list", {}));
  assert.deepEqual((listed.skills as { name: string }[]).map((skill) => skill.name), [
    "kept",
    "other",
  ]);
  for (const tool of ["skill_load", "skill_browse_detail"]) {
    await t.step(tool, async () => {
      const answer = toolJson(await session.call(tool, { name: "other" }));
      assert.equal(answer.error, "SKILL_UNAVAILABLE", JSON.stringify(answer));
      assert.match(
        String(answer.message),
        /^The instructions of skill "other" cannot be read now: /,
      );
      assert.match(String(answer.hint), /served again as soon as it loads/);
      assert.doesNotMatch(JSON.stringify(answer), /skill_list|browse the skills again/);
    });
  }
  await t.step("skill_file, resources/read and prompts/get name the reason too", async () => {
    const file = toolJson(await session.call("skill_file", { name: "other", paths: ["SKILL.md"] }));
    const [entry] = file.files as { error?: string; message?: string }[];
    assert.equal(typeof entry?.error, "string", JSON.stringify(file));
    assert.doesNotMatch(JSON.stringify(file), /skill_list/);
    // One at a time: a request made before the other's answer was awaited would reject unheard.
    const attempts = [
      () => session.client.readResource({ uri: "skill://other/SKILL.md" }),
      () => session.client.getPrompt({ name: "other" }),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(() => null, (caught: unknown) => caught);
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, /not a regular file|not served|cannot be served/);
    }
  });
  await t.step(
    "it loads again as soon as its SKILL.md does; the other skill never stopped",
    async () => {
      await Deno.remove(tree.at("other/SKILL.md"));
      await Deno.writeTextFile(tree.at("other/SKILL.md"), skillMd("other", "Does other things"));
      const loaded = toolJson(await session.call("skill_load", { name: "other" }));
      assert.equal(loaded.name, "other", JSON.stringify(loaded));
      assert.equal(toolJson(await session.call("skill_load", { name: "kept" })).name, "kept");
    },
  );
});
