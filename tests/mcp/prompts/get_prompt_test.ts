import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { getPrompt } from "../../../src/mcp/prompts/get_prompt.ts";
import { ProtocolError } from "../../../src/mcp/sdk.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

const THEMES = skillMd("themes", "Applies themes", "# Themes\r\n\nUse  them.\u00a0\n");

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

function invalidParams(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, -32602);
    assert.match(error.message, pattern);
    return true;
  };
}

async function withTree(test: (catalog: Catalog, root: string) => Promise<void>): Promise<void> {
  await using tree = await makeTree({
    "themes/SKILL.md": THEMES,
    "skill/SKILL.md": skillMd("skill", "A skill called skill"),
    "quiet/SKILL.md": `---\nname: quiet\ndescription: Model only\nuser-invocable: false\n---\nQ\n`,
  });
  await test(await catalogOf(tree.path), tree.path);
}

Deno.test("prompts/get embeds the skill's SKILL.md exactly, for the assistant, in user messages", async () => {
  await withTree(async (catalog) => {
    const result = await getPrompt(catalog, "themes", undefined);
    assert.equal(result.description, "Applies themes");
    assert.equal(result.messages.length, 2);
    const [instruction, attachment] = result.messages;
    assert.equal(instruction?.role, "user");
    assert.equal(instruction?.content.type, "text");
    assert.match(
      instruction?.content.type === "text" ? instruction.content.text : "",
      /follow the instructions.*skill:\/\/themes\/SKILL\.md/,
    );
    assert.deepEqual(attachment, {
      role: "user",
      content: {
        type: "resource",
        resource: { uri: "skill://themes/SKILL.md", mimeType: "text/markdown", text: THEMES },
        annotations: { audience: ["assistant"], priority: 1 },
      },
    });
  });
});

Deno.test("the generic prompt reaches every user-invocable skill, including one named skill", async () => {
  await withTree(async (catalog) => {
    const viaGeneric = await getPrompt(catalog, "skill", { name: "themes" });
    assert.deepEqual(viaGeneric, await getPrompt(catalog, "themes", undefined));
    const named = await getPrompt(catalog, "skill", { name: "skill" });
    const attachment = named.messages[1]?.content;
    assert.ok(attachment?.type === "resource");
    assert.equal(attachment.resource.uri, "skill://skill/SKILL.md");
  });
});

Deno.test("prompts/get refuses unknown, hidden and argument-less prompts with -32602 and suggestions", async () => {
  await withTree(async (catalog) => {
    await assert.rejects(
      () => getPrompt(catalog, "theme", undefined),
      invalidParams(/Unknown prompt "theme"; prompts served include: skill, themes \(2 in all\)/),
    );
    await assert.rejects(
      () => getPrompt(catalog, "quiet", undefined),
      invalidParams(/Unknown prompt "quiet"/),
    );
    await assert.rejects(
      () => getPrompt(catalog, "skill", { name: "quiet" }),
      invalidParams(/No skill named "quiet" is offered; skills offered include: skill, themes/),
    );
    await assert.rejects(
      () => getPrompt(catalog, "skill", {}),
      invalidParams(/needs the argument "name"/),
    );
  });
});

Deno.test("prompts/get refuses a SKILL.md swapped for a symlink after listing", async () => {
  await withTree(async (catalog, root) => {
    await Deno.writeTextFile(`${root}/outside.md`, "not the skill\n");
    await Deno.remove(`${root}/themes/SKILL.md`);
    await Deno.symlink(`${root}/outside.md`, `${root}/themes/SKILL.md`);
    await assert.rejects(
      () => getPrompt(catalog, "themes", undefined),
      (error: unknown) =>
        error instanceof ProtocolError && error.code === -32602 &&
        /instructions of skill "themes" cannot be served.*outside the skill/.test(error.message),
    );
  });
});
