/** summariseProblems(): the start-up line's and banner's counts are what clients are served. */

import assert from "node:assert/strict";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { MAX_BANNER_PROBLEMS, summariseProblems } from "../../src/worker/summary.ts";
import { problemLine } from "../../src/cli/problem_line.ts";
import { memoryCatalog, memorySkill } from "../support/memory_catalog.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import { createScriptService } from "../../src/scripts/service.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { listSkills } from "../../src/mcp/tools/skill_list.ts";

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

Deno.test("summariseProblems() lists errors before warnings, at most 10 lines, and counts every problem (review hR M2)", () => {
  const problems = [
    ...Array.from({ length: 8 }, (_, n) => ({
      path: `/r/a${n}/x`,
      reason: "file-not-served" as const,
      severity: "warning" as const,
      detail: "not served",
    })),
    ...Array.from({ length: 4 }, (_, n) => ({
      path: `/r/z${n}/SKILL.md`,
      reason: "invalid-frontmatter" as const,
      severity: "error" as const,
      detail: "description is missing",
    })),
  ];
  const store = createCatalogStore(
    memoryCatalog([memorySkill({ name: "pdf", description: "Reads PDFs" })]),
    { overrides: {}, problems },
  );
  const summary = summariseProblems(store);
  assert.equal(summary.errorCount, 4);
  assert.equal(summary.warningCount, 8);
  assert.equal(summary.problemLines.length, MAX_BANNER_PROBLEMS);
  assert.deepEqual(
    summary.problemLines.slice(0, 4).map((line) => line.split(":")[0]),
    ["/r/z0/SKILL.md", "/r/z1/SKILL.md", "/r/z2/SKILL.md", "/r/z3/SKILL.md"],
  );
  assert.ok(summary.problemLines.slice(4).every((line) => line.includes(": warning ")));
});

Deno.test("summariseProblems() counts the grant's problems with the script service, as skill_list does (review hR L1)", () => {
  const catalog = memoryCatalog([memorySkill({ name: "pdf", description: "Reads PDFs" })]);
  const store = createCatalogStore(catalog, { overrides: {}, problems: [] });
  const config = parseCommandLine({
    args: ["serve", "/r"],
    getEnv: (name) =>
      name === "MCP_SKILL_RUN" ? '[{"skill":"other","script":"scripts/ok.sh"}]' : undefined,
    cwd: "/",
  });
  const scripts = createScriptService(config, {
    interpreters: lookUpInterpreters("/usr/bin:/bin"),
    permittedPrograms: [],
    envValues: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
    capturedEnvNames: [],
    environ: { scrubbed: true, method: "proc-self-mem", note: "" },
    isolation: { mode: "process-group", unsharePath: null, note: "" },
    folderVerdicts: [],
  }, { killer: createGroupKiller() });
  const summary = summariseProblems(store, scripts);
  const listed = listSkills(store.current(), {
    query: "",
    after: null,
    limit: 50,
    hosted: false,
    scripts,
    isOwnerView: true,
  });
  assert.equal(summary.errorCount + summary.warningCount, listed.problemsTotal);
  assert.equal(summary.errorCount, 1);
  assert.match(
    summary.problemLines[0] ?? "",
    /^MCP_SKILL_RUN: error grant: Row 0 .*grants nothing/,
  );
  // Without the service (scripts off) only the catalog's problems.
  assert.equal(summariseProblems(store).errorCount, 0);
});
