/**
 * Review r16, N3: `skillgate validate --strict` counts every Agent Skills
 * spec finding (name pattern, name vs folder, description length, ...) and
 * `extension-excluded` as errors (exit 1), for an author's CI; without it
 * they stay warnings (exit 0), as served. Through the real program.
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

/** `severity reason` of each finding line, sorted (the summary line left out). */
function verdicts(stdout: string): string[] {
  return stdout.trimEnd().split("\n").slice(0, -1).map((line) =>
    / (error|warning) ([a-z-]+): /.exec(line)?.slice(1, 3).join(" ") ?? `unparsed: ${line}`
  ).sort();
}

Deno.test("validate --strict fails a skill that breaks the spec's name pattern, differs from its folder and has an over-long description; plain validate passes it", async () => {
  await using tree = await makeTree({
    "bad/SKILL.md": skillMd("Bad_Name", "d".repeat(1100)),
  });
  const plain = await runProgram(["validate", tree.at("bad")]);
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  assert.match(plain.stdout, /^OK: /m);
  assert.ok(verdicts(plain.stdout).every((v) => v.startsWith("warning ")), plain.stdout);

  const strict = await runProgram(["validate", "--strict", tree.at("bad")]);
  assert.equal(strict.code, 1, strict.stdout + strict.stderr);
  assert.match(strict.stdout, /^FAILED: 1 path checked, 1 usable skill, \d+ errors, 0 warnings$/m);
  const found = verdicts(strict.stdout);
  assert.ok(found.every((v) => v.startsWith("error ")), strict.stdout);
  for (const reason of ["invalid-frontmatter", "name-mismatch", "extension-excluded"]) {
    assert.ok(found.includes(`error ${reason}`), `${reason} is an error: ${strict.stdout}`);
  }
  assert.match(strict.stdout, /\(an error under --strict\)/);
  assert.equal(strict.stdout.split("\n").length, plain.stdout.split("\n").length, "same findings");
});

Deno.test("validate --strict passes a skill that follows the spec (exit 0), and SKILLGATE_STRICT sets it too", async () => {
  await using tree = await makeTree({
    "good/SKILL.md": skillMd("good", "Does good things when asked for good things."),
    "bad/SKILL.md": skillMd("bad", "d".repeat(1100)),
  });
  const strict = await runProgram(["validate", "--strict", tree.at("good")]);
  assert.equal(strict.code, 0, strict.stdout + strict.stderr);
  assert.match(strict.stdout, /^OK: 1 path checked, 1 usable skill, 0 errors, 0 warnings$/m);
  const byEnv = await runProgram(["validate", tree.at("bad")], {
    env: { SKILLGATE_STRICT: "true" },
  });
  assert.equal(byEnv.code, 1, byEnv.stdout + byEnv.stderr);
  assert.ok(verdicts(byEnv.stdout).includes("error invalid-frontmatter"), byEnv.stdout);
});

Deno.test("--help names validate --strict", async () => {
  const help = await runProgram(["--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /skillgate validate \[--strict\] PATH\.\.\./);
  assert.match(help.stdout, /--strict\b[^\n]*\n\s+validate: every Agent Skills spec finding/);
});
