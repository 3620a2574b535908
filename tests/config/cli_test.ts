/**
 * parseCommandLine(): roots, precedence, hosted detection, options and their
 * SKILLGATE_* variables, and the usage errors a person can make.
 */

import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../../src/config/cli.ts";
import { OPTIONS } from "../../src/config/options.ts";

function parse(args: string[], env: Record<string, string> = {}) {
  return parseCommandLine({ args, getEnv: (name) => env[name], cwd: "/work" });
}

Deno.test("parseCommandLine() reads roots from arguments, resolving relative paths and ~", () => {
  const config = parse(["serve", "skills", "~/more/", "/abs//x/"], { HOME: "/home/u" });
  assert.equal(config.command, "serve");
  assert.deepEqual(config.roots, [
    { path: "/work/skills", from: "argument" },
    { path: "/home/u/more", from: "argument" },
    { path: "/abs/x", from: "argument" },
  ]);
  assert.equal(config.hosted, false);
  assert.ok(
    Object.isFrozen(config) && Object.isFrozen(config.roots) && Object.isFrozen(config.caps),
  );
});

Deno.test("parseCommandLine() treats serve as the default command", () => {
  assert.equal(parse(["/a"]).command, "serve");
  assert.deepEqual(parse(["/a"]).roots, [{ path: "/a", from: "argument" }]);
});

Deno.test("parseCommandLine(): MCP_SKILLS_PATH wins over arguments and SKILLS_DIR and marks hosted", () => {
  const config = parse(["/arg"], { MCP_SKILLS_PATH: "/h1:/h2,/h3", SKILLS_DIR: "/s" });
  assert.deepEqual(config.roots.map((root) => root.path), ["/h1", "/h2", "/h3"]);
  assert.ok(config.roots.every((root) => root.from === "MCP_SKILLS_PATH"));
  assert.equal(config.hosted, true);
  assert.equal(config.hostedBy, "MCP_SKILLS_PATH");
});

Deno.test("parseCommandLine(): SKILLS_DIR is used when no argument is given, split on : and ,", () => {
  const config = parse([], { SKILLS_DIR: "/a:/b, /c,,/a" });
  assert.deepEqual(config.roots.map((root) => root.path), ["/a", "/b", "/c"]);
  assert.equal(config.hosted, false, "SKILLS_DIR alone never marks the server hosted");
});

Deno.test("parseCommandLine(): a blank value or a literal ${VAR} counts as unset", async (t) => {
  for (const value of ["", "   ", "${MCP_SKILLS_PATH}", " ${X} "]) {
    await t.step(JSON.stringify(value), () => {
      const config = parse(["/arg"], { MCP_SKILLS_PATH: value });
      assert.deepEqual(config.roots, [{ path: "/arg", from: "argument" }]);
      assert.equal(config.hosted, false);
    });
  }
});

Deno.test("parseCommandLine(): other host markers mark the server hosted without giving roots", () => {
  for (const marker of ["MCP_HOST_METER_FILE", "MCP_DATA_DIR", "MCP_BLOB_BASE_URL"]) {
    const config = parse(["/a"], { [marker]: "/x" });
    assert.equal(config.hosted, true, marker);
    assert.equal(config.hostedBy, marker);
  }
});

Deno.test("parseCommandLine(): flags win over their SKILLGATE_* variables", () => {
  const fromEnv = parse(["/a"], { SKILLGATE_MAX_SKILLS: "50", SKILLGATE_TOOLS: "never" });
  assert.equal(fromEnv.caps.maxSkills, 50);
  assert.equal(fromEnv.options.tools, "never");
  const fromFlag = parse(["/a", "--max-skills=7", "--tools", "always"], {
    SKILLGATE_MAX_SKILLS: "50",
  });
  assert.equal(fromFlag.caps.maxSkills, 7);
  assert.equal(fromFlag.options.tools, "always");
});

Deno.test("parseCommandLine(): --http alone uses port 3000, --http=PORT sets it", () => {
  assert.equal(parse(["/a"]).options.http, null);
  assert.equal(parse(["/a", "--http"]).options.http, 3000);
  assert.equal(parse(["/a", "--http=8080"]).options.http, 8080);
  assert.equal(parse(["/a"], { SKILLGATE_HTTP: "true" }).options.http, 3000);
  assert.equal(parse(["/a"], { SKILLGATE_HTTP: "9000" }).options.http, 9000);
  assert.equal(parse(["/a"], { SKILLGATE_HTTP: "false" }).options.http, null);
});

Deno.test("parseCommandLine(): every option has a distinct SKILLGATE_* variable", () => {
  const names = OPTIONS.map((option) => option.env);
  assert.equal(new Set(names).size, names.length);
  assert.ok(names.every((name) => name.startsWith("SKILLGATE_")));
});

Deno.test("parseCommandLine() reads the script settings of the security-first anchor", () => {
  const config = parse(["/a"], {
    MCP_SKILL_RUN: '[{"skill":"x","script":"s.py"}]',
    MCP_CONFIRM_MODE: "auto",
    MCP_CONFIRM_TTL_SECONDS: "30",
    MCP_SKILL_ALLOW_UNSCRUBBED: "1",
  });
  assert.equal(config.scripts.grantJson, '[{"skill":"x","script":"s.py"}]');
  assert.equal(config.scripts.confirmMode, "auto");
  assert.equal(config.scripts.confirmTtlSeconds, 30);
  assert.equal(config.scripts.allowUnscrubbed, true);
  assert.equal(parse(["/a"]).scripts.confirmMode, "ask-user");
  assert.equal(parse(["/a"]).scripts.confirmTtlSeconds, 600);
});

Deno.test("parseCommandLine(): --help and --version win over everything else", () => {
  assert.equal(parse(["--help", "--bogus"]).command, "help");
  assert.equal(parse(["--version"]).command, "version");
  assert.equal(parse(["-h"]).command, "help");
});

Deno.test("parseCommandLine() refuses what a person can get wrong, with a clear message", async (t) => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["/a", "--bogus"], {}, /Unknown option "--bogus"/],
    [["/a", "--max-skills=lots"], {}, /--max-skills must be a whole number, got "lots"/],
    [["/a", "--max-skills=0"], {}, /--max-skills must be between 1 and/],
    [["/a", "--max-skills"], {}, /needs a value/],
    [["/a", "--tools=sometimes"], {}, /--tools must be one of auto, always, never/],
    [["/a"], { SKILLGATE_MAX_SKILLS: "-3" }, /SKILLGATE_MAX_SKILLS must be a whole number/],
    [["/a"], { SKILLGATE_STATIC: "maybe" }, /SKILLGATE_STATIC must be true or false/],
    [["/a"], { MCP_CONFIRM_MODE: "yolo" }, /MCP_CONFIRM_MODE must be ask-user, auto or refuse/],
    [["/a", "--http=70000"], {}, /--http must be between 1 and 65535/],
    [[], {}, /No skill root given/],
    [["validate"], {}, /Nothing to validate/],
  ];
  for (const [args, env, message] of cases) {
    await t.step(args.join(" ") || JSON.stringify(env), () => {
      assert.throws(() => parse(args, env), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
