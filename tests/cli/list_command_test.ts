import assert from "node:assert/strict";
import type { SkillListAnswer } from "../../src/mcp/tools/skill_list.ts";
import { copyCorpus, corpora } from "../support/corpora.ts";
import { connectStdio, runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

function parseAnswer(stdout: string): SkillListAnswer {
  return JSON.parse(stdout) as SkillListAnswer;
}

for (const corpus of corpora()) {
  Deno.test(`list --json answers exactly what the skill_list tool answers for the ${corpus.label} corpus`, async () => {
    await using copy = await copyCorpus(corpus);
    const root = copy.root;
    const listed = await runProgram(["list", root, "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    const answer = parseAnswer(listed.stdout);
    await using session = await connectStdio(["serve", root]);
    const tool = await session.call("skill_list", { limit: 1000 });
    assert.notEqual(tool.isError, true);
    // The two processes start with different environments (the SDK client adds a few
    // variables), so the size of the scrubbed environment block may differ.
    const sameBlockSize = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replace(/\(\d+ bytes\)/g, "(N bytes)"));
    assert.deepEqual(sameBlockSize(answer), sameBlockSize(tool.structuredContent));
    assert.deepEqual(answer.skills.map((skill) => skill.name), corpus.names);
    assert.equal(answer.total, corpus.names.length);
    assert.equal(answer.nextCursor, undefined);
  });
}

Deno.test("list --json includes every problem, errors first, beyond the tool's 100 per answer", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 5; i++) entries[`a-warn-${i}/SKILL.md`] = skillMd("other-name");
  for (let i = 0; i < 110; i++) {
    entries[`z-err-${String(i).padStart(3, "0")}/SKILL.md`] = "---\nname: x\n---\n";
  }
  await using tree = await makeTree(entries);
  const listed = await runProgram(["list", tree.path, "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const answer = parseAnswer(listed.stdout);
  assert.equal(answer.problemsTotal, answer.problems.length);
  const severities = answer.problems.map((problem) => problem.severity);
  const errors = severities.filter((severity) => severity === "error").length;
  assert.equal(errors, 110);
  assert.ok(severities.slice(0, errors).every((severity) => severity === "error"));
  assert.ok(severities.slice(errors).every((severity) => severity === "warning"));
  assert.deepEqual(
    answer.skills.map((skill) => skill.name),
    [0, 1, 2, 3, 4].map((i) => `a-warn-${i}`),
  );
});

Deno.test("list prints a table cut to COLUMNS with problems grouped by severity", async () => {
  const long = "Formats quarterly reports with charts and tables ".repeat(6).trim();
  await using tree = await makeTree({
    "report-writer/SKILL.md": skillMd("report-writer", long),
    "report-writer/references/guide.md": "x".repeat(2048),
    "mismatch/SKILL.md": skillMd("not-mismatch"),
    "broken/SKILL.md": "---\nname: broken\n---\n",
  });
  const listed = await runProgram(["list", tree.path], { env: { COLUMNS: "60" } });
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.split("\n");
  const header = lines.findIndex((line) => line.startsWith("NAME"));
  assert.ok(header > 0, listed.stdout);
  assert.match(lines[header] ?? "", /^NAME\s+FILES\s+SIZE\s+DESCRIPTION$/);
  const rows = lines.slice(header + 1, header + 3);
  assert.match(rows[0] ?? "", /^mismatch\s+1\s+\d+ B\s+Does not-mismatch things$/);
  assert.match(rows[1] ?? "", /^report-writer\s+2\s+2\.\d KiB\s+Formats quarterly.*…$/);
  for (const row of [lines[header] ?? "", ...rows]) assert.ok([...row].length <= 60, row);
  const errorsAt = lines.indexOf("Errors (1):");
  const warningsAt = lines.findIndex((line) => /^Warnings \(\d+\):$/.test(line));
  assert.ok(errorsAt > header && warningsAt > errorsAt, listed.stdout);
  assert.match(
    lines[errorsAt + 1] ?? "",
    /^ {2}\/.*\/broken\/SKILL\.md:1:1: error invalid-frontmatter: description is missing/,
  );
  assert.match(lines[warningsAt + 1] ?? "", /mismatch\/SKILL\.md:2:1: warning name-mismatch: /);
});

Deno.test("list escapes terminal control sequences a skill author wrote", async () => {
  await using tree = await makeTree({
    "sneaky/SKILL.md":
      '---\nname: sneaky\ndescription: "Harmless \\e[2J\\e]0;owned\\a text"\n---\n',
  });
  const listed = await runProgram(["list", tree.path]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!listed.stdout.includes("\x1b"), "no raw escape character reaches the terminal");
  assert.ok(!listed.stdout.includes("\x07"));
  assert.match(listed.stdout, /Harmless \\u\{1b\}\[2J\\u\{1b\}\]0;owned\\u\{7\} text/);
});

Deno.test("list exits 2 and names the root when a root does not exist", async () => {
  await using tree = await makeTree({});
  const missing = `${tree.path}/nowhere`;
  const listed = await runProgram(["list", missing, "--json"]);
  assert.equal(listed.code, 2);
  assert.equal(listed.stdout, "");
  assert.match(listed.stderr, /Skill root ".*\/nowhere" does not exist/);
});

Deno.test("list's SCRIPTS column counts a declaration refused as declared (1 runnable, 1 refused)", async () => {
  await using tree = await makeTree({
    "s1/SKILL.md": "---\nname: s1\ndescription: two scripts\nmcp-host:\n  version: 1\n  run:\n" +
      "    - script: scripts/a.sh\n      interpreter: sh\n" +
      "    - script: scripts/b.py\n      interpreter: nosuchinterp\n---\nBody\n",
    "s1/scripts/a.sh": "echo a\n",
    "s1/scripts/b.py": "print('b')\n",
  });
  const listed = await runProgram(["list", tree.path], { env: { COLUMNS: "120" } });
  assert.equal(listed.code, 0, listed.stderr);
  const row = listed.stdout.split("\n").find((line) => line.startsWith("s1 "));
  assert.match(row ?? "", /1 runnable, 1 refused/, listed.stdout);
  const json = parseAnswer((await runProgram(["list", tree.path, "--json"])).stdout);
  assert.equal(json.skills[0]?.refusedDeclarations, 1);
});
