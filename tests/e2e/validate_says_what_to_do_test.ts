/**
 * `skillgate validate` through the real program: each error says what is
 * wrong and what to do (review s15 L6), and a frontmatter that closes beyond
 * the SKILL.md read is not called "never closed" (L3).
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

Deno.test("validate: a FIFO or folder named SKILL.md, and a SKILL.md linked out of its skill, each get their remedy", async () => {
  await using outside = await makeTree({ "elsewhere.md": skillMd("esc") });
  await using tree = await makeTree({
    "skills/fifo/x.md": "x\n",
    "skills/dir/SKILL.md/x.md": "x\n",
    "skills/esc/SKILL.md": { symlink: outside.at("elsewhere.md") },
  });
  const made = await new Deno.Command("mkfifo", { args: [tree.at("skills/fifo/SKILL.md")] })
    .output();
  assert.ok(made.success);
  const run = await runProgram(["validate", tree.at("skills")]);
  assert.equal(run.code, 1, run.stderr);
  const lineOf = (skill: string) =>
    run.stdout.split("\n").find((line) => line.startsWith(`${tree.at(`skills/${skill}`)}/`)) ?? "";
  for (const skill of ["fifo", "dir"]) {
    assert.match(
      lineOf(skill),
      /error unreadable-skill-md: .*is not a regular file.*\. Replace it with a regular file$/,
      run.stdout,
    );
  }
  assert.match(
    lineOf("esc"),
    /error symlink-escape: .*points outside the skill folder.*\. Copy the file into the skill folder, or move its target inside it$/,
    run.stdout,
  );
});

Deno.test("validate: a frontmatter that closes beyond the SKILL.md read is reported as longer than the read, never as 'never closed'", async () => {
  const description = "x".repeat(300_000);
  await using tree = await makeTree({
    "bigfm/SKILL.md": `---\nname: bigfm\ndescription: "${description}"\n---\nbody\n`,
    "mid/SKILL.md": `---\nname: mid\ndescription: "${"y".repeat(30_000)}"\n---\nbody\n`,
  });
  const big = await runProgram(["validate", tree.at("bigfm")]);
  assert.equal(big.code, 1, big.stderr);
  assert.doesNotMatch(big.stdout, /never closed/);
  assert.match(
    big.stdout,
    /malformed-frontmatter: The frontmatter does not close within the first 262144 bytes of SKILL\.md, which is all that is read \(--max-skill-md-bytes\), and is longer than 65536 bytes already/,
  );
  const mid = await runProgram(["validate", "--max-skill-md-bytes=20000", tree.at("mid")]);
  assert.equal(mid.code, 1, mid.stderr);
  assert.match(
    mid.stdout,
    /does not close within the first 20000 bytes of SKILL\.md.*or raise --max-skill-md-bytes/,
  );
});
