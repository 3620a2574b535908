/**
 * parseCommandLine() for remote sources: the repeatable --source flag and its
 * whitespace-separated variable, the default-deny owner allowlist, hosted
 * refusal, prefixes, sync's SPEC arguments, --root-prefix, the lock path.
 */

import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../../src/config/cli.ts";

function parse(args: string[], env: Record<string, string> = {}) {
  return parseCommandLine({ args, getEnv: (name) => env[name], cwd: "/work" });
}

const ALLOW = "--github-allow=acme,Other";

Deno.test("parseCommandLine() reads repeated --source flags, which win over SKILLGATE_SOURCES", () => {
  const env = { SKILLGATE_SOURCES: " github:acme/a\n\tgithub:other/b,prefix=bee " };
  assert.deepEqual(parse(["/r", ALLOW], env).remoteSources.map((s) => [s.spec, s.prefix]), [
    ["github:acme/a", "acme-a"],
    ["github:other/b", "bee"],
  ]);
  const flags = parse(["/r", ALLOW, "--source", "github:acme/c@v1", "--source=github:acme/d"], env);
  assert.deepEqual(flags.remoteSources.map((s) => s.spec), ["github:acme/c@v1", "github:acme/d"]);
});

Deno.test("attack: parseCommandLine() refuses a source whose owner is not allowed (default deny)", () => {
  assert.throws(() => parse(["/r", "--source=github:acme/a"]), UsageError);
  assert.throws(
    () => parse(["/r", "--source=github:evil/a", ALLOW]),
    (error: Error) =>
      error instanceof UsageError && error.message.includes('"evil"') &&
      !error.message.includes("Other"),
  );
});

Deno.test("attack: parseCommandLine() refuses --source when hosted; the host's variable counts", () => {
  const hosted = { MCP_SKILLS_PATH: "/h", SKILLGATE_GITHUB_ALLOW: "acme" };
  assert.throws(() => parse(["--source=github:acme/a"], hosted), UsageError);
  const config = parse([], { ...hosted, SKILLGATE_SOURCES: "github:acme/a" });
  assert.deepEqual(config.remoteSources.map((s) => s.spec), ["github:acme/a"]);
});

Deno.test("parseCommandLine() refuses two sources with one prefix and a bad --github-api", () => {
  assert.throws(
    () =>
      parse(["/r", ALLOW, "--source=github:acme/a,prefix=x", "--source=github:acme/b,prefix=x"]),
    UsageError,
  );
  assert.throws(
    () => parse(["/r", ALLOW, "--source=github:acme/a", "--github-api=http://example.com"]),
    UsageError,
  );
});

Deno.test("parseCommandLine() serves sources without a root, and sync takes SPECs to update", () => {
  const serve = parse([ALLOW, "--source=github:acme/a"]);
  assert.deepEqual(serve.roots, []);
  assert.equal(serve.lockPath, "/work/skillgate.lock");
  const sync = parse([
    "sync",
    ALLOW,
    "--source=github:acme/a@main",
    "--update",
    "github:ACME/a@main",
  ]);
  assert.equal(sync.command, "sync");
  assert.deepEqual(sync.updateSpecs, ["github:acme/a@main"]);
  assert.throws(
    () => parse(["sync", ALLOW, "--source=github:acme/a", "github:acme/zzz"]),
    UsageError,
  );
  assert.throws(() => parse(["sync"]), UsageError);
  assert.equal(
    parse(["sync", ALLOW, "--source=github:acme/a", "--lock=x.lock"]).lockPath,
    "/work/x.lock",
  );
});

Deno.test("parseCommandLine() gives a local root a prefix with --root-prefix", () => {
  const config = parse(["/r", "/s", "--root-prefix=team=/s"]);
  assert.deepEqual(config.roots, [
    { path: "/r", from: "argument" },
    { path: "/s", from: "argument", prefix: "team" },
  ]);
  assert.throws(() => parse(["/r", "--root-prefix=team=/elsewhere"]), UsageError);
  assert.throws(() => parse(["/r", "--root-prefix=Team=/r"]), UsageError);
  assert.throws(
    () => parse(["/r", ALLOW, "--source=github:acme/a,prefix=team", "--root-prefix=team=/r"]),
    UsageError,
  );
});

Deno.test("parseCommandLine() reads a publisher source beside a GitHub one, each on its own list", () => {
  const config = parse([
    "/r",
    ALLOW,
    "--well-known-allow=https://Skills.Acme.dev",
    "--source=github:acme/a",
    "--source=https://skills.acme.dev/team",
  ]);
  assert.deepEqual(config.remoteSources.map((s) => [s.kind, s.spec, s.prefix]), [
    ["github", "github:acme/a", "acme-a"],
    [
      "well-known",
      "https://skills.acme.dev/team/.well-known/agent-skills/",
      "skills-acme-dev-team",
    ],
  ]);
  const sync = parse([
    "sync",
    "--well-known-allow=https://skills.acme.dev",
    "--source=https://skills.acme.dev/",
    "--update",
    "https://skills.acme.dev/.well-known/agent-skills/index.json",
  ]);
  assert.deepEqual(sync.updateSpecs, ["https://skills.acme.dev/.well-known/agent-skills/"]);
});

Deno.test("attack: parseCommandLine() refuses a publisher off --well-known-allow (exact origin, default deny)", () => {
  for (
    const allow of [
      [],
      ["--well-known-allow=https://acme.dev"],
      ["--well-known-allow=https://skills.acme.dev:8443"],
      ["--well-known-allow=http://skills.acme.dev"],
      ["--github-allow=skills.acme.dev"],
    ]
  ) {
    assert.throws(
      () => parse(["/r", ...allow, "--source=https://skills.acme.dev/"]),
      (error: Error) =>
        error instanceof UsageError && !error.message.includes("acme.dev:8443") &&
        (error.message.includes("is not allowed") || error.message.includes("not an origin")),
      allow.join(" "),
    );
  }
  for (const entry of ["https://*.acme.dev", "https://acme.dev/path", "http://acme.dev"]) {
    assert.throws(() => parse(["/r", `--well-known-allow=${entry}`]), UsageError, entry);
  }
});
