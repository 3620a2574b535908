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
