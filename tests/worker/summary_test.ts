/** summariseProblems(): the start-up line's and banner's counts are what clients are served. */

import assert from "node:assert/strict";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { summariseProblems } from "../../src/worker/summary.ts";
import { problemLine } from "../../src/cli/problem_line.ts";
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
    "overrides.json: warning restart-needed: turning back on 1 override takes effect at the next start",
  ]);
});

Deno.test("summariseProblems() renders a problem as skillgate list does: a path holding a line break escaped, never flattened (n9)", () => {
  const problem = {
    path: "/r/pdf/new\nline.md",
    reason: "file-not-served" as const,
    severity: "warning" as const,
    detail: "not served",
  };
  const store = createCatalogStore(
    memoryCatalog([memorySkill({ name: "pdf", description: "Reads PDFs" })]),
    {
      overrides: {},
      problems: [problem],
    },
  );
  const [line] = summariseProblems(store).problemLines;
  assert.equal(line, problemLine(problem, { isFrontmatterLocated: true }));
  assert.equal(line, "/r/pdf/new\\u{a}line.md: warning file-not-served: not served");
});
