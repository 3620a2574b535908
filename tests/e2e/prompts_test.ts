/**
 * End-to-end: `prompts/*` and `completion/complete` of the real program on a
 * temporary copy of each corpus (tests/support/corpora.ts), driven by the
 * real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { copyCorpus, corpora } from "../support/corpora.ts";
import { connectStdio } from "../support/program.ts";

const SKILL_NAMED_SKILL = "---\nname: skill\ndescription: A skill whose name is skill\n---\nS\n";
const NOT_INVOCABLE = "---\nname: model-only\ndescription: For the model only\n" +
  "user-invocable: false\n---\nM\n";

interface EmbeddedResource {
  type: "resource";
  resource: { uri: string; mimeType?: string; text?: string };
}

for (const corpus of corpora()) {
  Deno.test(`prompts over the ${corpus.label} corpus: one per skill, the skill prompt, completion`, async (t) => {
    const { rich } = corpus.facts;
    await using copy = await copyCorpus(corpus);
    const root = copy.root;
    // Every corpus skill is user-invocable; the `skill` prompt also reaches the skill named skill.
    const offered = corpus.names.length + 1;
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
        assert.equal(names.length, offered);
        const theme = prompts.find((prompt) => prompt.name === rich.skill);
        assert.ok(theme?.description?.startsWith(rich.descriptionStart), theme?.description);
        assert.match(prompts[0]?.description ?? "", /skill named "skill".*with name "skill"/);
      },
    );

    await t.step("prompts/get for a skill embeds its SKILL.md exactly", async () => {
      const expected = await Deno.readTextFile(join(copy.skill(rich.skill), "SKILL.md"));
      for (
        const request of [
          { name: rich.skill },
          { name: "skill", arguments: { name: rich.skill } },
        ]
      ) {
        const result = await client.getPrompt(request);
        const [instruction, attachment] = result.messages;
        assert.equal(instruction?.role, "user");
        assert.equal(instruction?.content.type, "text");
        assert.equal(attachment?.role, "user");
        const content = attachment?.content as EmbeddedResource;
        assert.equal(content.type, "resource");
        assert.equal(content.resource.uri, `skill://${rich.skill}/SKILL.md`);
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

    await t.step(`completion of "${rich.completionPrefix}" offers ${rich.skill}`, async () => {
      const { completion } = await client.complete({
        ref: { type: "ref/prompt", name: "skill" },
        argument: { name: "name", value: rich.completionPrefix },
      });
      assert.deepEqual(completion, { values: [rich.skill], total: 1, hasMore: false });
      const all = await client.complete({
        ref: { type: "ref/prompt", name: "skill" },
        argument: { name: "name", value: "" },
      });
      assert.equal(all.completion.total, offered);
      assert.ok(!all.completion.values.includes("model-only"));
    });
  });
}
