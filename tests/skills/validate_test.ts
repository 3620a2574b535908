import assert from "node:assert/strict";
import { validateFrontmatter } from "../../src/skills/validate.ts";
import type { Problem } from "../../src/skills/problem.ts";

const where = { dirName: "pdf", skillMdPath: "/root/pdf/SKILL.md" };

function check(fm: Record<string, unknown>): Problem[] {
  return validateFrontmatter(fm, where);
}

function only(problems: Problem[]): Problem {
  assert.equal(problems.length, 1, JSON.stringify(problems));
  return problems[0] as Problem;
}

Deno.test("validateFrontmatter() finds nothing in a conforming frontmatter", () => {
  assert.deepEqual(
    check({
      name: "pdf",
      description: "Works with PDFs",
      license: "MIT",
      compatibility: "Needs python3",
      metadata: { author: "me", version: "1.0" },
      "allowed-tools": "Bash(python:*) Read",
      "x-unknown": { anything: [1, 2] },
    }),
    [],
  );
});

Deno.test("validateFrontmatter() makes a missing description an error", () => {
  const problem = only(check({ name: "pdf" }));
  assert.equal(problem.severity, "error");
  assert.equal(problem.reason, "invalid-frontmatter");
  assert.equal(problem.path, "/root/pdf/SKILL.md");
  assert.match(problem.detail, /description is missing/);
});

Deno.test("validateFrontmatter() says an empty frontmatter is empty", () => {
  const problems = check({});
  const error = problems.find((p) => p.severity === "error");
  assert.match(error?.detail ?? "", /^Frontmatter is empty and description is missing/);
});

Deno.test("validateFrontmatter() makes an empty or non-text description an error", () => {
  for (const description of ["", "   ", null, 42, ["a"], { a: 1 }]) {
    const problem = only(check({ name: "pdf", description }));
    assert.equal(problem.severity, "error", JSON.stringify(description));
    assert.equal(problem.reason, "invalid-frontmatter");
  }
});

Deno.test("validateFrontmatter() warns on a description over 1024 characters", () => {
  assert.deepEqual(check({ name: "pdf", description: "é".repeat(1024) }), []);
  const problem = only(check({ name: "pdf", description: "x".repeat(1068) }));
  assert.equal(problem.severity, "warning");
  assert.equal(
    problem.detail,
    "description is 1068 characters; the Agent Skills spec allows at most 1024. Shorten it",
  );
});

Deno.test("validateFrontmatter() warns on a missing name", () => {
  const problem = only(check({ description: "d" }));
  assert.equal(problem.severity, "warning");
  assert.equal(problem.reason, "invalid-frontmatter");
  assert.match(problem.detail, /name: pdf/);
});

Deno.test("validateFrontmatter() warns on a name that differs from the directory", () => {
  const problem = only(check({ name: "pdf-tools", description: "d" }));
  assert.equal(problem.reason, "name-mismatch");
  assert.equal(problem.severity, "warning");
  assert.match(problem.detail, /"pdf-tools" differs from the directory name "pdf"/);
});

Deno.test("validateFrontmatter() warns on a numeric name (name: 12306), even one equal to the folder", () => {
  const problem = only(
    validateFrontmatter({ name: 12306, description: "d" }, { ...where, dirName: "12306" }),
  );
  assert.equal(problem.reason, "invalid-frontmatter");
  assert.equal(problem.severity, "warning");
  assert.match(problem.detail, /name must be text, found the number "12306"/);
  assert.match(problem.detail, /name: "12306"/);
  assert.equal(only(check({ name: 7, description: "d" })).reason, "invalid-frontmatter");
});

Deno.test("validateFrontmatter() warns on a name off the spec charset or length", () => {
  for (const name of ["PDF", "pdf_tools", "pdf--x", "-pdf", "x".repeat(65), "ünï"]) {
    const problems = validateFrontmatter({ name, description: "d" }, { ...where, dirName: name });
    const problem = only(problems);
    assert.equal(problem.reason, "invalid-frontmatter", name);
    assert.equal(problem.severity, "warning");
  }
});

Deno.test("validateFrontmatter() warns on a name that is not text", () => {
  const problem = only(check({ name: ["pdf"], description: "d" }));
  assert.equal(problem.severity, "warning");
  assert.match(problem.detail, /name must be text, found a list/);
});

Deno.test("validateFrontmatter() warns on a bad compatibility", () => {
  for (const compatibility of ["", 3, "x".repeat(501)]) {
    const problem = only(check({ name: "pdf", description: "d", compatibility }));
    assert.equal(problem.severity, "warning");
    assert.equal(problem.reason, "invalid-frontmatter");
  }
  assert.deepEqual(check({ name: "pdf", description: "d", compatibility: "x".repeat(500) }), []);
});

Deno.test("validateFrontmatter() warns on metadata that is not a map of text", () => {
  assert.match(
    only(check({ name: "pdf", description: "d", metadata: ["a"] })).detail,
    /metadata must be a map/,
  );
  const nested = only(check({ name: "pdf", description: "d", metadata: { a: "x", v: 1, n: {} } }));
  assert.match(nested.detail, /"v", "n" are not/);
});

Deno.test("validateFrontmatter() warns on license or allowed-tools that are not text", () => {
  assert.match(only(check({ name: "pdf", description: "d", license: 1 })).detail, /license/);
  assert.match(
    only(check({ name: "pdf", description: "d", "allowed-tools": ["Read"] })).detail,
    /allowed-tools must be text/,
  );
});

Deno.test("validateFrontmatter() points findings at the key's line", () => {
  const problems = validateFrontmatter({ name: "other", description: "d" }, {
    ...where,
    keyLines: new Map([["name", 2], ["description", 3]]),
  });
  assert.equal(only(problems).line, 2);
  assert.equal(only(problems).column, 1);
});
