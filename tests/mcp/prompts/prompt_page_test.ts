import assert from "node:assert/strict";
import { encodeNameCursor } from "../../../src/mcp/tools/cursor.ts";
import { listPromptPage } from "../../../src/mcp/prompts/prompt_page.ts";
import { type Prompt, ProtocolError } from "../../../src/mcp/sdk.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { testCatalog } from "../resources/_catalog.ts";

function listAll(catalog: Catalog, pageSize: number): Prompt[] {
  const prompts: Prompt[] = [];
  let cursor: string | undefined;
  do {
    const page = listPromptPage(catalog, { cursor, pageSize });
    assert.ok(page.prompts.length <= pageSize);
    prompts.push(...page.prompts);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return prompts;
}

const CATALOG = testCatalog([
  { name: "theme-factory", description: "Themes things" },
  { name: "skill", description: "A skill named skill" },
  { name: "hidden", frontmatter: { "user-invocable": false } },
  { name: "quoted", frontmatter: { "user-invocable": "false" } },
  { name: "alpha" },
]);

Deno.test("prompts/list offers the generic prompt first, then one prompt per skill", () => {
  const prompts = listAll(CATALOG, 1000);
  assert.deepEqual(prompts.map((prompt) => prompt.name), [
    "skill",
    "alpha",
    "quoted",
    "theme-factory",
  ]);
  assert.deepEqual(prompts[3], { name: "theme-factory", description: "Themes things" });
  const generic = prompts[0] as Prompt;
  assert.deepEqual(generic.arguments, [{
    name: "name",
    description: "The skill's name, e.g. theme-factory",
    required: true,
  }]);
});

Deno.test("the generic prompt says how to reach a skill named skill, only when one is offered", () => {
  const [generic] = listPromptPage(CATALOG, { pageSize: 10 }).prompts as [Prompt];
  assert.match(generic.description ?? "", /skill named "skill".*with name "skill"/);
  const without = testCatalog([{ name: "alpha" }]);
  const [plain] = listPromptPage(without, { pageSize: 10 }).prompts as [Prompt];
  assert.doesNotMatch(plain.description ?? "", /named "skill"/);
  const hiddenSkill = testCatalog([{ name: "skill", frontmatter: { "user-invocable": false } }]);
  const [hidden] = listPromptPage(hiddenSkill, { pageSize: 10 }).prompts as [Prompt];
  assert.doesNotMatch(hidden.description ?? "", /named "skill"/);
});

Deno.test("prompts/list pages with a name cursor, each prompt exactly once", () => {
  const names = Array.from({ length: 25 }, (_, index) => `s-${String(index).padStart(2, "0")}`);
  const catalog = testCatalog(names.map((name) => ({ name })));
  for (const pageSize of [2, 3, 5, 26, 27]) {
    assert.deepEqual(listAll(catalog, pageSize).map((p) => p.name), ["skill", ...names]);
  }
  assert.throws(
    () => listPromptPage(catalog, { cursor: "nope", pageSize: 5 }),
    (error: unknown) => error instanceof ProtocolError && error.code === -32602,
  );
});

Deno.test("prompts/list refuses a name cursor another list issued for the same name (review hR L4)", () => {
  const catalog = testCatalog(["a", "b", "c"].map((name) => ({ name })));
  for (const list of ["skill_list", "skills/list"] as const) {
    assert.throws(
      () => listPromptPage(catalog, { cursor: encodeNameCursor(list, "a"), pageSize: 2 }),
      (error: unknown) => error instanceof ProtocolError && error.code === -32602,
    );
  }
  const own = listPromptPage(catalog, {
    cursor: encodeNameCursor("prompts/list", "a"),
    pageSize: 2,
  });
  assert.deepEqual(own.prompts.map((prompt) => prompt.name), ["b", "c"]);
});
