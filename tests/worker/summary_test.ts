/** summariseProblems(): the start-up line's and banner's counts are what clients are served. */

import assert from "node:assert/strict";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { summariseProblems } from "../../src/worker/summary.ts";
import { memoryCatalog, memorySkill } from "../support/memory_catalog.ts";

Deno.test("summariseProblems() does not count a skill disabled by overrides.json, as list and skill_list do not", () => {
  const store = createCatalogStore(
    memoryCatalog([
      memorySkill({ name: "alpha", description: "Brews coffee" }),
      memorySkill({ name: "beta", description: "Bakes bread" }),
    ]),
    {
      overrides: { beta: { enabled: false } },
      problems: [{
        path: "overrides.json",
        reason: "restart-needed",
        severity: "warning",
        detail: "turning back on 1 override takes effect at the next start",
      }],
    },
  );
  assert.deepEqual(store.current().skills.map((skill) => skill.name), ["alpha"]);
  const summary = summariseProblems(store);
  assert.equal(summary.skillCount, 1);
  assert.equal(summary.errorCount, 0);
  assert.equal(summary.warningCount, 1);
  assert.deepEqual(summary.problemLines, [
    "warning restart-needed: overrides.json: turning back on 1 override takes effect at the next start",
  ]);
});
