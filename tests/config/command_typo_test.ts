import assert from "node:assert/strict";
import { commandMeant } from "../../src/config/command_typo.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { runProgram } from "../support/program.ts";

Deno.test("commandMeant() names the command within two edits of a bare first argument, else null", () => {
  assert.equal(commandMeant("lsit"), "list");
  assert.equal(commandMeant("serv"), "serve");
  assert.equal(commandMeant("valdiate"), "validate");
  assert.equal(commandMeant("permisions"), "permissions");
  assert.equal(commandMeant("List"), "list");
  assert.equal(commandMeant("list"), null, "a command itself");
  assert.equal(commandMeant("./lsit"), null, "a path separator: a path");
  assert.equal(commandMeant("skills"), null, "three edits from any command");
  assert.equal(commandMeant(""), null);
});

Deno.test("checkRoots() reports a missing root typed first as a bare command typo as that command, not as a root", async () => {
  const cwd = Deno.cwd();
  const typo = await checkRoots([{ path: `${cwd}/lsit`, from: "argument" }], ["lsit"]);
  assert.deepEqual(typo.failures.map((failure) => failure.message), [
    'unknown command "lsit": did you mean "list"? Run: skillgate list ... (skillgate --help ' +
    'lists the commands; a skill folder named "lsit" is passed as ./lsit once it exists)',
  ]);
  // Not first, or typed as a path, or from the environment: a root that does not exist.
  for (
    const [args, from] of [[["serve", "lsit"], "argument"], [["./lsit"], "argument"], [
      ["lsit"],
      "SKILLS_DIR",
    ]] as const
  ) {
    const root = await checkRoots([{ path: `${cwd}/lsit`, from }], args);
    assert.match(root.failures[0]?.message ?? "", /^Skill root ".*lsit" does not exist/);
  }
});

Deno.test("skillgate lsit exits 2 with nothing on stdout and says the command it meant", async () => {
  const run = await runProgram(["lsit"]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /unknown command "lsit": did you mean "list"\? Run: skillgate list/);
});
