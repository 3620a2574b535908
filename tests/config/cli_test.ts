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

Deno.test("parseCommandLine() takes a ROOT argument exactly: trailing whitespace is part of the name", () => {
  const config = parse(["list", "/tmp/x/trail ", " lead", "/tmp/tab\t"]);
  assert.deepEqual(config.roots.map((root) => root.path), [
    "/tmp/x/trail ",
    "/work/ lead",
    "/tmp/tab\t",
  ]);
  assert.deepEqual(parse(["validate", "/s/a "]).targets, ["/s/a "]);
  const listed = parse(["/arg "], { MCP_SKILLS_PATH: " /h1 , /h2 " });
  assert.deepEqual(listed.roots.map((root) => root.path), ["/h1", "/h2"], "variable lists trim");
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

Deno.test("parseCommandLine(): a blank value or a literal ${VAR} gives no roots", async (t) => {
  for (const value of ["", "   ", "${MCP_SKILLS_PATH}", " ${X} "]) {
    await t.step(JSON.stringify(value), () => {
      const config = parse(["/arg"], { MCP_SKILLS_PATH: value });
      assert.deepEqual(config.roots, [{ path: "/arg", from: "argument" }]);
      // A placeholder or a blank value gives no roots, yet a host started us: it still marks
      // the server hosted (blank_hosted_marker_attack_test.ts).
      assert.equal(config.hosted, true);
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

Deno.test("parseCommandLine(): --http 8080 (with a space) takes the port, not a root", () => {
  const config = parse(["serve", "--http", "8080", "/a"]);
  assert.equal(config.options.http, 8080);
  assert.deepEqual(config.roots, [{ path: "/a", from: "argument" }]);
  const last = parse(["/a", "--http", "9000"]);
  assert.equal(last.options.http, 9000);
  assert.deepEqual(last.roots.map((root) => root.path), ["/a"]);
  const followedByRoot = parse(["--http", "skills"]);
  assert.equal(followedByRoot.options.http, 3000, "a non-numeric next argument stays a root");
  assert.deepEqual(followedByRoot.roots.map((root) => root.path), ["/work/skills"]);
});

Deno.test("parseCommandLine(): --http=0 is an error, not a silent stdio server; the variable's 0/false/off still mean off", () => {
  for (const args of [["/a", "--http=0"], ["/a", "--http", "0"], ["/a", "--http=00"]]) {
    assert.throws(() => parse(args), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /--http must be between 1 and 65535/);
      assert.match(error.message, /leave --http out for stdio/);
      return true;
    }, args.join(" "));
  }
  for (const value of ["0", "false", "off"]) {
    assert.equal(parse(["/a"], { SKILLGATE_HTTP: value }).options.http, null, value);
  }
  assert.equal(parse(["/a", "--http=false"], { SKILLGATE_HTTP: "8080" }).options.http, null);
});

Deno.test("parseCommandLine(): --allowed-origins takes origins only, never * or a path", async (t) => {
  const ok = parse(["/a", "--allowed-origins=https://app.example.com,http://localhost:5173/"]);
  assert.deepEqual(ok.options.allowedOrigins, [
    "https://app.example.com",
    "http://localhost:5173/",
  ]);
  const cases: [string, RegExp][] = [
    ["*", /--allowed-origins does not take "\*"; list each origin as http\(s\):\/\/host\[:port\]/],
    ["app.example.com", /--allowed-origins takes origins as .*got "app.example.com"/],
    ["https://app.example.com/path", /got "https:\/\/app.example.com\/path"/],
    ["https://a.example.com,ftp://b.example.com", /got "ftp:\/\/b.example.com"/],
  ];
  for (const [value, message] of cases) {
    await t.step(value, () => {
      assert.throws(() => parse(["/a", `--allowed-origins=${value}`]), message);
      assert.throws(
        () => parse(["/a"], { SKILLGATE_ALLOWED_ORIGINS: value }),
        /SKILLGATE_ALLOWED_ORIGINS/,
      );
    });
  }
});

Deno.test("parseCommandLine(): --allowed-hosts takes host[:port] only, no scheme or path", async (t) => {
  const ok = parse(["/a", "--allowed-hosts", "skills.example.com,box:8443,[::1]:3000"]);
  assert.deepEqual(ok.options.allowedHosts, ["skills.example.com", "box:8443", "[::1]:3000"]);
  for (const value of ["http://skills.example.com", "skills.example.com/mcp", "box:0", "a b"]) {
    await t.step(value, () => {
      assert.throws(
        () => parse(["/a", `--allowed-hosts=${value}`]),
        (error: unknown) => {
          assert.ok(error instanceof UsageError);
          assert.ok(error.message.includes(`"${value}"`), error.message);
          assert.match(error.message, /host\[:port\] values \(no scheme, no path/);
          return true;
        },
      );
    });
  }
});

Deno.test("parseCommandLine(): a MCP_CONFIRM_SECRET shorter than 16 characters is refused without echoing it", () => {
  const short = "tooshort-secret";
  assert.throws(() => parse(["/a"], { MCP_CONFIRM_SECRET: short }), (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /MCP_CONFIRM_SECRET is too short; use at least 16 characters/);
    assert.ok(!error.message.includes(short), "the secret is never echoed");
    return true;
  });
  const secret = "shared-secret-0123456789";
  assert.equal(parse(["/a"], { MCP_CONFIRM_SECRET: secret }).scripts.confirmSecret, secret);
});

Deno.test("parseCommandLine(): MCP_SKILLS_PATH replacing ROOT arguments is told, not silent", () => {
  const config = parse(["serve", "mine", "/other"], { MCP_SKILLS_PATH: "/hosted" });
  assert.deepEqual(config.roots.map((root) => root.path), ["/hosted"]);
  assert.equal(config.notices.length, 1);
  assert.match(
    config.notices[0] ?? "",
    /^MCP_SKILLS_PATH is set, so it replaces the ROOT arguments \("mine", "\/other"\); unset MCP_SKILLS_PATH to serve them$/,
  );
  assert.ok(Object.isFrozen(config.notices));
  assert.deepEqual(parse(["/a"]).notices, []);
  assert.deepEqual(parse([], { MCP_SKILLS_PATH: "/hosted" }).notices, [], "nothing was replaced");
  assert.deepEqual(parse(["--help"]).notices, []);
});
