/**
 * Per-skill overrides as a view over the catalog: disabled skills are not
 * served, hidden ones leave the model's catalog and skill_search, prompts
 * follow userInvocable, and an override never widens the frontmatter.
 */

import assert from "node:assert/strict";
import { isInModelCatalog, renderSkillCatalog } from "../../src/mcp/model_catalog/model_catalog.ts";
import { listPromptPage } from "../../src/mcp/prompts/prompt_page.ts";
import { diffCatalogs } from "../../src/refresh/catalog_diff.ts";
import { searchCatalog } from "../../src/search/search_skills.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { applyOverlay, narrowOverrides } from "../../src/skills/overrides.ts";
import { memoryCatalog, memorySkill } from "../support/memory_catalog.ts";

function catalog() {
  return memoryCatalog([
    memorySkill({ name: "alpha", description: "Brews coffee" }),
    memorySkill({ name: "beta", description: "Bakes bread" }),
    memorySkill({
      name: "gamma",
      description: "Grows tomatoes",
      frontmatter: { "disable-model-invocation": true, "user-invocable": false },
    }),
  ]);
}

const promptNames = (c: ReturnType<typeof catalog>) =>
  listPromptPage(c, { pageSize: 100 }).prompts.map((prompt) => prompt.name);

Deno.test("applyOverlay() leaves a disabled skill out, marks hidden ones, and keeps the base as it was", () => {
  const base = catalog();
  const view = applyOverlay(base, {
    overrides: { beta: { enabled: false }, alpha: { modelInvocable: false, userInvocable: false } },
    problems: [],
  });
  assert.deepEqual(view.skills.map((skill) => skill.name), ["alpha", "gamma"]);
  assert.equal(view.byName.has("beta"), false);
  const alpha = view.byName.get("alpha")!;
  assert.equal(isInModelCatalog(alpha), false);
  assert.deepEqual(promptNames(view), ["skill"], "alpha's prompt gone; gamma never had one");
  assert.doesNotMatch(renderSkillCatalog(view), /alpha/);
  assert.equal(base.skills.length, 3, "the base catalog is unchanged");
  assert.equal(isInModelCatalog(base.byName.get("alpha")!), true);
  assert.ok(Object.isFrozen(view) && Object.isFrozen(alpha));
  assert.equal(applyOverlay(base, { overrides: {}, problems: [] }), base);
});

Deno.test("attack: an override's true never widens what the skill's frontmatter allows", () => {
  const view = applyOverlay(catalog(), {
    overrides: { gamma: { enabled: true, modelInvocable: true, userInvocable: true } },
    problems: [],
  });
  const gamma = view.byName.get("gamma")!;
  assert.equal(isInModelCatalog(gamma), false, "disable-model-invocation still holds");
  assert.ok(!promptNames(view).includes("gamma"), "user-invocable: false still holds");
});

Deno.test("attack: skill_search never returns a skill the owner hid from the model", async () => {
  const store = createCatalogStore(catalog());
  const found = async () =>
    (await searchCatalog(store, store.current(), "coffee", 10)).found.map((hit) => hit.skill.name);
  assert.deepEqual(await found(), ["alpha"]);
  store.setOverlay({ overrides: { alpha: { modelInvocable: false } }, problems: [] });
  assert.deepEqual(await found(), []);
  store.setOverlay({ overrides: {}, problems: [] });
  assert.deepEqual(await found(), ["alpha"]);
});

Deno.test("createCatalogStore(): swap() keeps the overlay; base() is the catalog as built", () => {
  const store = createCatalogStore(catalog(), {
    overrides: { beta: { enabled: false } },
    problems: [],
  });
  assert.deepEqual(store.current().skills.map((s) => s.name), ["alpha", "gamma"]);
  assert.equal(store.base().skills.length, 3);
  const next = memoryCatalog([
    memorySkill({ name: "beta", description: "Bakes rye" }),
    memorySkill({ name: "delta", description: "Paints" }),
  ]);
  store.swap(next);
  assert.equal(store.base(), next);
  assert.deepEqual(store.current().skills.map((s) => s.name), ["delta"]);
});

Deno.test("diffCatalogs() sees an override change as a prompts and model-catalog change", () => {
  const base = catalog();
  const hidden = applyOverlay(base, {
    overrides: { alpha: { userInvocable: false } },
    problems: [],
  });
  assert.equal(diffCatalogs(base, hidden).promptsChanged, true);
  const disabled = applyOverlay(base, { overrides: { beta: { enabled: false } }, problems: [] });
  const change = diffCatalogs(base, disabled);
  assert.equal(change.resourcesChanged, true);
  assert.equal(change.promptsChanged, true);
});

Deno.test("narrowOverrides() keeps every switch that was off; turning one back on is reported", () => {
  const { overrides, widened } = narrowOverrides(
    { alpha: { enabled: false }, beta: { modelInvocable: false } },
    { alpha: { enabled: true }, gamma: { userInvocable: false } },
  );
  assert.deepEqual(overrides, {
    alpha: { enabled: false },
    beta: { modelInvocable: false },
    gamma: { userInvocable: false },
  });
  assert.deepEqual(widened, ["alpha.enabled", "beta.modelInvocable"]);
  assert.deepEqual(narrowOverrides({}, { a: { enabled: true } }), { overrides: {}, widened: [] });
});

Deno.test("applyOverlay() reports a row naming no served skill (a typo, another case) as override-unmatched, with the name meant", () => {
  const view = applyOverlay(catalog(), {
    overrides: {
      Alpha: { enabled: false },
      "no-such-skil": { enabled: false },
      beta: { enabled: false },
    },
    problems: [],
  });
  assert.deepEqual(
    view.skills.map((skill) => skill.name),
    ["alpha", "gamma"],
    "Alpha disables nothing",
  );
  const unmatched = view.problems.filter((problem) => problem.reason === "override-unmatched");
  assert.equal(unmatched.length, 2);
  assert.match(
    unmatched[0]!.detail,
    /The row "Alpha" names no served skill.*did you mean "alpha"\?/,
  );
  assert.match(
    unmatched[1]!.detail,
    /The row "no-such-skil" names no served skill, so it changes nothing\. Names are exact/,
  );
  assert.ok(unmatched.every((problem) => problem.severity === "warning"));
});
