import assert from "node:assert/strict";
import { displayPath, problemLine, problemLocation } from "../../src/cli/problem_line.ts";
import { skillFolderOf } from "../../src/cli/validate_command.ts";
import type { Problem } from "../../src/skills/problem.ts";

const missing: Problem = {
  path: "/work/skills/pdf/SKILL.md",
  reason: "invalid-frontmatter",
  severity: "error",
  detail: "description is missing",
};

Deno.test("problemLocation() adds line and column when known", () => {
  assert.equal(
    problemLocation({ ...missing, line: 4, column: 9 }),
    "/work/skills/pdf/SKILL.md:4:9",
  );
  assert.equal(problemLocation({ ...missing, line: 4 }), "/work/skills/pdf/SKILL.md:4");
  assert.equal(problemLocation(missing), "/work/skills/pdf/SKILL.md");
});

Deno.test("problemLocation() points a missing frontmatter field at the frontmatter's first line", () => {
  assert.equal(
    problemLocation(missing, { isFrontmatterLocated: true }),
    "/work/skills/pdf/SKILL.md:1:1",
  );
  const folder: Problem = {
    path: "/work/skills/a b",
    reason: "unusable-name",
    severity: "error",
    detail: "x",
  };
  assert.equal(problemLocation(folder, { isFrontmatterLocated: true }), "/work/skills/a b");
});

Deno.test("problemLine() prints paths under the working directory relative to it", () => {
  assert.equal(
    problemLine({ ...missing, line: 2, column: 1 }, { cwd: "/work" }),
    "skills/pdf/SKILL.md:2:1: error invalid-frontmatter: description is missing",
  );
  assert.equal(displayPath("/elsewhere/x", "/work"), "/elsewhere/x");
  assert.equal(displayPath("/work", "/work"), ".");
  assert.equal(displayPath("/work/..hidden/x", "/work"), "..hidden/x");
});

Deno.test("problemLine() keeps a finding on one line with control characters escaped", () => {
  const line = problemLine({ ...missing, detail: 'name "a\nb\x1b[0m" is odd' });
  assert.equal(
    line,
    '/work/skills/pdf/SKILL.md: error invalid-frontmatter: name "a b\\u{1b}[0m" is odd',
  );
});

Deno.test("skillFolderOf() turns a SKILL.md path in any case into its folder", () => {
  assert.equal(skillFolderOf("/s/pdf/SKILL.md"), "/s/pdf");
  assert.equal(skillFolderOf("/s/pdf/skill.md"), "/s/pdf");
  assert.equal(skillFolderOf("/s/pdf"), "/s/pdf");
  assert.equal(skillFolderOf("/s/my-skill.md-notes"), "/s/my-skill.md-notes");
});
