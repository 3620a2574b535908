/**
 * End-to-end: `prompts/*` and `completion/complete` of the real program on a
 * temporary copy of the corpus, driven by the real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio, copyToTemp, CORPUS } from "../support/program.ts";

const SKILL_NAMED_SKILL = "---\nname: skill\ndescription: A skill whose name is skill\n---\nS\n";
const NOT_INVOCABLE = "---\nname: model-only\ndescription: For the model only\n" +
  "user-invocable: false\n---\nM\n";

interface EmbeddedResource {
  type: "resource";
  resource: { uri: string; mimeType?: string; text?: string };
}

Deno.test("prompts over the corpus: one per skill, the skill prompt, completion", async (t) => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  await Deno.mkdir(join(root, "skill"));
  await Deno.writeTextFile(join(root, "skill", "SKILL.md"), SKILL_NAMED_SKILL);
  await Deno.mkdir(join(root, "model-only"));
  await Deno.writeTextFile(join(root, "model-only", "SKILL.md"), NOT_INVOCABLE);
  await using session = await connectStdio(["serve", root]);
  const { client } = session;

  await t.step("the server declares prompts with listChanged, and completions", () => {
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.prompts, { listChanged: true });
    assert.deepEqual(capabilities?.completions, {});
  });

  await t.step(
    "prompts/list: the skill prompt, then every user-invocable corpus skill",
    async () => {
      const { prompts, nextCursor } = await client.listPrompts();
      assert.equal(nextCursor, undefined);
      const names = prompts.map((prompt) => prompt.name);
      assert.equal(names[0], "skill");
      assert.equal(names.filter((name) => name === "skill").length, 1);
      assert.ok(!names.includes("model-only"));
      assert.equal(names.length, 13);
      const theme = prompts.find((prompt) => prompt.name === "theme-factory");
      assert.match(theme?.description ?? "", /^Toolkit for styling artifacts with a theme/);
      assert.match(prompts[0]?.description ?? "", /skill named "skill".*with name "skill"/);
    },
  );

  await t.step("prompts/get for a skill embeds its SKILL.md exactly", async () => {
    const expected = await Deno.readTextFile(join(root, "theme-factory", "SKILL.md"));
    for (
      const request of [
        { name: "theme-factory" },
        { name: "skill", arguments: { name: "theme-factory" } },
      ]
    ) {
      const result = await client.getPrompt(request);
      const [instruction, attachment] = result.messages;
      assert.equal(instruction?.role, "user");
      assert.equal(instruction?.content.type, "text");
      assert.equal(attachment?.role, "user");
      const content = attachment?.content as EmbeddedResource;
      assert.equal(content.type, "resource");
      assert.equal(content.resource.uri, "skill://theme-factory/SKILL.md");
      assert.equal(content.resource.mimeType, "text/markdown");
      assert.equal(content.resource.text, expected);
    }
  });

  await t.step("the skill named skill is reached through the skill prompt", async () => {
    const result = await client.getPrompt({ name: "skill", arguments: { name: "skill" } });
    const content = result.messages[1]?.content as EmbeddedResource;
    assert.equal(content.resource.text, SKILL_NAMED_SKILL);
  });

  await t.step("unknown and non-invocable prompts are refused with -32602", async () => {
    for (
      const request of [
        { name: "no-such-prompt" },
        { name: "model-only" },
        { name: "skill", arguments: { name: "model-only" } },
      ]
    ) {
      await assert.rejects(() => client.getPrompt(request), (error: unknown) => {
        assert.equal((error as { code?: unknown }).code, -32602);
        assert.match(String(error), /prompts served include: skill, |skills offered include: /);
        return true;
      });
    }
  });

  await t.step("completion of the offers theme-factory", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "skill" },
      argument: { name: "name", value: "the" },
    });
    assert.deepEqual(completion, { values: ["theme-factory"], total: 1, hasMore: false });
    const all = await client.complete({
      ref: { type: "ref/prompt", name: "skill" },
      argument: { name: "name", value: "" },
    });
    assert.equal(all.completion.total, 13);
    assert.ok(!all.completion.values.includes("model-only"));
  });
});
