import assert from "node:assert/strict";
import { decideColumns, DEFAULT_COLUMNS, MIN_COLUMNS } from "../../src/cli/command_io.ts";
import { formatBytes, renderListTable } from "../../src/cli/list_table.ts";
import type { SkillListAnswer } from "../../src/mcp/tools/skill_list.ts";

function answer(overrides: Partial<SkillListAnswer> = {}): SkillListAnswer {
  return {
    roots: [{ path: "/srv/skills", from: "argument" }],
    hosted: false,
    total: 1,
    skills: [{
      name: "pdf",
      description: "Extract text and tables from PDF files, fill forms, merge documents",
      source: "/srv/skills",
      files: 12,
      bytes: 1_572_864,
    }],
    problems: [],
    problemsTotal: 0,
    ...overrides,
  };
}

Deno.test("formatBytes() uses bytes below 1 KiB and one decimal above", () => {
  assert.equal(formatBytes(0), "0 B");
  assert.equal(formatBytes(1023), "1023 B");
  assert.equal(formatBytes(1024), "1.0 KiB");
  assert.equal(formatBytes(1_572_864), "1.5 MiB");
  assert.equal(formatBytes(5 * 1024 ** 4), "5.0 TiB");
});

Deno.test("renderListTable() fits every skill row into the width", () => {
  const text = renderListTable(answer(), { columns: 50 });
  assert.equal(
    text,
    [
      "1 skill from 1 root:",
      "  /srv/skills (argument)",
      "",
      "NAME  FILES     SIZE  DESCRIPTION",
      "pdf      12  1.5 MiB  Extract text and tables fro…",
      "",
      "No problems found.",
      "",
    ].join("\n"),
  );
});

Deno.test("renderListTable() groups problems by severity, errors first, each located", () => {
  const text = renderListTable(
    answer({
      skills: [],
      hosted: true,
      problems: [
        {
          path: "/srv/skills/b/SKILL.md",
          reason: "malformed-frontmatter",
          severity: "error",
          detail: "Bad",
          line: 3,
          column: 7,
        },
        {
          path: "/srv/skills/c/SKILL.md",
          reason: "invalid-frontmatter",
          severity: "error",
          detail: "description is missing",
        },
        { path: "/srv/skills/a", reason: "nested-skill", severity: "warning", detail: "Nested" },
      ],
      problemsTotal: 3,
    }),
    { columns: 80 },
  );
  assert.equal(
    text,
    [
      "0 skills from 1 root (hosted):",
      "  /srv/skills (argument)",
      "",
      "No skills found.",
      "",
      "Errors (2):",
      "  /srv/skills/b/SKILL.md:3:7: error malformed-frontmatter: Bad",
      "  /srv/skills/c/SKILL.md:1:1: error invalid-frontmatter: description is missing",
      "",
      "Warnings (1):",
      "  /srv/skills/a: warning nested-skill: Nested",
      "",
    ].join("\n"),
  );
});

Deno.test("decideColumns() prefers the terminal, then COLUMNS, then the default", () => {
  assert.equal(decideColumns(132, "60"), 132);
  assert.equal(decideColumns(null, "60"), 60);
  assert.equal(decideColumns(null, " 72 "), 72);
  assert.equal(decideColumns(null, "wide"), DEFAULT_COLUMNS);
  assert.equal(decideColumns(null, undefined), DEFAULT_COLUMNS);
  assert.equal(decideColumns(10, undefined), MIN_COLUMNS);
});

Deno.test("renderListTable() shows each skill's script state and why a script cannot run", () => {
  const text = renderListTable(
    answer({
      total: 3,
      skills: [
        { name: "docs", description: "No scripts", source: "/srv/skills", files: 1, bytes: 10 },
        {
          name: "pdf",
          description: "Two scripts",
          source: "/srv/skills",
          files: 3,
          bytes: 2048,
          executable: true,
          scripts: [{ script: "scripts/a.sh", interpreter: "bash", env: [], timeoutMs: 1000 }],
          ungrantedScripts: [{ script: "scripts/b.py", reason: "No grant row names it" }],
          unavailableScripts: [],
        },
        {
          name: "ts",
          description: "Needs deno",
          source: "/srv/skills",
          files: 2,
          bytes: 20,
          executable: false,
          scripts: [],
          ungrantedScripts: [],
          unavailableScripts: [{ script: "x.ts", reason: '"deno" was not found on PATH' }],
        },
      ],
    }),
    { columns: 100 },
  );
  const lines = text.split("\n");
  assert.equal(lines[3], "NAME  FILES     SIZE  SCRIPTS                  DESCRIPTION");
  assert.equal(lines[4], "docs      1     10 B  -                        No scripts");
  assert.equal(lines[5], "pdf       3  2.0 KiB  1 runnable, 1 ungranted  Two scripts");
  assert.equal(lines[6], "ts        2     20 B  1 unavailable            Needs deno");
  assert.deepEqual(lines.slice(8, 11), [
    "Scripts that cannot run (2):",
    "  pdf: scripts/b.py: not granted: No grant row names it",
    '  ts: x.ts: unavailable: "deno" was not found on PATH',
  ]);
});

Deno.test("renderListTable() leaves the SCRIPTS column out when no skill declares a script", () => {
  const text = renderListTable(answer(), { columns: 80 });
  assert.ok(!text.includes("SCRIPTS"));
  assert.ok(!text.includes("Scripts that cannot run"));
});
