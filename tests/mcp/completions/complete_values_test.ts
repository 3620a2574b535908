import assert from "node:assert/strict";
import { complete } from "../../../src/mcp/completions/completions_family.ts";
import { completeBySubstring } from "../../../src/mcp/completions/complete_values.ts";
import { testCatalog } from "../resources/_catalog.ts";

Deno.test("completeBySubstring() matches case-insensitively, prefixes first", () => {
  const names = ["brand-guidelines", "Theme-Factory", "the-other", "x-theme", "canvas"];
  assert.deepEqual(completeBySubstring(names, "THE"), {
    values: ["Theme-Factory", "the-other", "x-theme"],
    total: 3,
    hasMore: false,
  });
  assert.deepEqual(completeBySubstring(names, ""), { values: names, total: 5, hasMore: false });
  assert.deepEqual(completeBySubstring(names, "zzz"), { values: [], total: 0, hasMore: false });
});

Deno.test("completeBySubstring() returns at most 100 values with total and hasMore", () => {
  const names = Array.from({ length: 250 }, (_, index) => `skill-${index}`);
  const answer = completeBySubstring(names, "skill");
  assert.equal(answer.values.length, 100);
  assert.equal(answer.total, 250);
  assert.equal(answer.hasMore, true);
  assert.equal(completeBySubstring(names, "skill", { maxValues: 1000 }).values.length, 100);
});

Deno.test("complete() offers user-invocable names for the skill prompt and files for the template", () => {
  const catalog = testCatalog([
    { name: "theme-factory", files: ["themes/ocean.md", "LICENSE.txt"] },
    { name: "hidden-theme", frontmatter: { "user-invocable": false } },
  ]);
  const argument = { name: "name", value: "the" };
  assert.deepEqual(complete(catalog, { ref: { type: "ref/prompt", name: "skill" }, argument }), {
    completion: { values: ["theme-factory"], total: 1, hasMore: false },
  });
  const template = { type: "ref/resource" as const, uri: "skill://{name}/{+path}" };
  assert.deepEqual(
    complete(catalog, { ref: template, argument }).completion.values,
    ["theme-factory", "hidden-theme"],
  );
  assert.deepEqual(
    complete(catalog, {
      ref: template,
      argument: { name: "path", value: "OCEAN" },
      context: { arguments: { name: "theme-factory" } },
    }).completion.values,
    ["themes/ocean.md"],
  );
  assert.deepEqual(
    complete(catalog, { ref: { type: "ref/prompt", name: "theme-factory" }, argument }),
    { completion: { values: [], total: 0, hasMore: false } },
  );
});
