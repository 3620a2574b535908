/**
 * `skillgate override Hello --disable` for a skill named `hello`: the row
 * matches nothing, so the skill stays served; the owner learns it from
 * `list` (an `override-unmatched` warning naming the name meant).
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

Deno.test("attack: an override row with another case or a typo is reported by list, never silently 'disabled'", async () => {
  await using tree = await makeTree({
    "skills/hello/SKILL.md": skillMd("hello"),
    "xdg": { dir: true },
  });
  const env = { XDG_CONFIG_HOME: tree.at("xdg") };
  const override = await runProgram(["override", "Hello", "--disable"], { env });
  assert.equal(override.code, 0, override.stderr);
  const listed = await runProgram(["list", tree.at("skills"), "--json"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const answer = JSON.parse(listed.stdout) as {
    skills: { name: string }[];
    problems: { reason: string; detail: string }[];
  };
  assert.deepEqual(answer.skills.map((skill) => skill.name), ["hello"], "still served");
  const unmatched = answer.problems.find((problem) => problem.reason === "override-unmatched");
  assert.ok(unmatched !== undefined, listed.stdout);
  assert.match(unmatched.detail, /"Hello" names no served skill.*did you mean "hello"/);
});
