/**
 * End-to-end over stdio with the real SDK client: `skill_file` with an
 * `offset` or `length` that is not a whole number names the field and the
 * rule (it was "paths.0: Invalid input", the union of a path string and a
 * `{path, offset, length}` object hiding which field was wrong).
 */

import assert from "node:assert/strict";
import { connectStdio, REPO_ROOT } from "../support/program.ts";
import { toolErrorJson } from "../support/tool_answer.ts";

Deno.test("skill_file with offset 1.5 (or length 2.5) names the field and says it must be a whole number", async () => {
  await using session = await connectStdio(["serve", `${REPO_ROOT}examples/skills`]);
  const list = (await session.call("skill_list", {})).structuredContent as {
    skills: { name: string }[];
  };
  const name = list.skills[0]?.name ?? "";
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [
      { path: "SKILL.md", offset: 1.5 },
      /paths\.0\.offset: must be a whole number \(no fraction\)$/,
    ],
    [
      { path: "SKILL.md", length: 2.5 },
      /paths\.0\.length: must be a whole number \(no fraction\)$/,
    ],
    [{ path: "SKILL.md", offset: "3" }, /paths\.0\.offset: Invalid input: expected number/],
    [{ path: "SKILL.md", offset: -1 }, /paths\.0\.offset: Too small/],
  ];
  for (const [entry, expected] of cases) {
    const error = toolErrorJson(await session.call("skill_file", { name, paths: [entry] }));
    assert.equal(error.error, "INVALID_ARGUMENTS");
    assert.match(error.message, expected, JSON.stringify(entry));
    assert.doesNotMatch(error.message, /paths\.0: Invalid input$/);
  }
  // A path string that is not a string at all still names the union's own problem.
  const bad = toolErrorJson(await session.call("skill_file", { name, paths: [5] }));
  assert.match(bad.message, /Invalid arguments for skill_file: paths\.0: /);
});
