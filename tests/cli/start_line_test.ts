/** The one start-up line a client's log shows. */

import assert from "node:assert/strict";
import { startLine } from "../../src/cli/start_line.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { VERSION } from "../../src/version.ts";
import { runProgram } from "../support/program.ts";

function configFor(args: string[]) {
  return parseCommandLine({ args, getEnv: () => undefined, cwd: "/" });
}

Deno.test("startLine() names version, roots, skills served and problems by severity", () => {
  const line = startLine(configFor(["serve", "/s/one", "/s/two"]), {
    type: "ready",
    skillCount: 7,
    errorCount: 1,
    warningCount: 2,
    problemLines: ["error duplicate-name: /s/one/a: also in /s/two/a"],
  });
  assert.equal(
    line,
    `skillgate ${VERSION}: serving 7 skills over stdio from /s/one (argument), /s/two (argument); ` +
      "problems: 1 error, 2 warnings (skillgate list shows them)",
  );
});

Deno.test("startLine() stays one line when a root's name holds a line break or an escape", () => {
  const line = startLine(configFor(["serve", "/s/evil\n\u001b]0;title\u0007"]), {
    type: "ready",
    skillCount: 1,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  });
  for (const raw of ["\n", "\u001b", "\u0007"]) {
    assert.ok(!line.includes(raw), JSON.stringify(line));
  }
  assert.match(line, /serving 1 skill over stdio .*; problems: 0 errors, 0 warnings$/);
});

Deno.test("the start-up line counts a grant row that grants nothing, as skillgate list does (review hR L1)", async () => {
  const env = { MCP_SKILL_RUN: '[{"skill":"nosuch","script":"scripts/x.sh"}]' };
  const served = await runProgram(["serve", "examples/skills"], { stdin: "", env });
  assert.equal(served.code, 0, served.stderr);
  assert.match(
    served.stderr,
    /: serving 2 skills over stdio from \S+ \(argument\); problems: 1 error, 0 warnings \(skillgate list shows them\)\n/,
  );
  const listed = await runProgram(["list", "examples/skills"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^Errors \(1\):\n {2}MCP_SKILL_RUN: error grant: Row 0 /m);
  assert.doesNotMatch(listed.stdout, /^Warnings/m);
});
