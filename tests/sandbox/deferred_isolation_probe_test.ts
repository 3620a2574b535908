/**
 * The isolation probe (it spawns bwrap and unshare) waits until after the
 * first answer when its outcome can decide nothing but the isolation the tools
 * report: the grant lets nothing run (issue 13, s10-h9). Everything a start
 * decides (the worker's rights, a refusal, the warnings, the index cache)
 * stays as an awaited probe decides it, and every tool call waits for the
 * probed facts, so what `skill_list` says about isolation stays true. When the
 * grant could let something run, the probe still runs before the worker
 * starts: it decides the worker's run permission.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../src/config/cli.ts";
import { parseGrant } from "../../src/scripts/grant.ts";
import { probeDecidesOnlyFacts } from "../../src/sandbox/script_boot.ts";
import { runProgram } from "../support/program.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

function decidesOnlyFacts(
  args: readonly string[],
  env: Record<string, string>,
  isScrubbed = true,
): boolean {
  const getEnv = (name: string) => env[name];
  const config = parseCommandLine({ args: ["serve", "/tmp", ...args], getEnv, cwd: "/" });
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  return probeDecidesOnlyFacts(config, grant, isScrubbed);
}

Deno.test("probeDecidesOnlyFacts() defers only where the grant lets nothing run and nothing else depends on the probe", () => {
  const nothing = { MCP_SKILL_RUN: "[]" };
  const row = { MCP_SKILL_RUN: JSON.stringify([{ skill: "notes", script: "a.sh" }]) };
  const table: [string, readonly string[], Record<string, string>, boolean, boolean][] = [
    ["an empty grant", [], nothing, true, true],
    ["MCP_CONFIRM_MODE=refuse, standalone", [], { MCP_CONFIRM_MODE: "refuse" }, true, true],
    ["standalone (the declarations stand)", [], {}, true, false],
    ["a grant row", [], row, true, false],
    [
      "an empty grant, --isolation=sandbox (may refuse the start)",
      ["--isolation=sandbox"],
      nothing,
      true,
      false,
    ],
    ["an empty grant, --isolation=group", ["--isolation=group"], nothing, true, false],
    ["an empty grant, the environ scrub failed", [], nothing, false, false],
    ["an empty grant, a host MCP_DATA_DIR", [], { ...nothing, MCP_DATA_DIR: "/tmp" }, true, false],
  ];
  for (const [what, args, env, isScrubbed, expected] of table) {
    assert.equal(decidesOnlyFacts(args, env, isScrubbed), expected, what);
  }
});

/** The deferred and the awaited start for `args` under `env` (tests/support/deferred_probe_main.ts). */
async function starts(args: readonly string[], env: Record<string, string>) {
  const run = await runProgram(["serve", ...args], {
    entry: "tests/support/deferred_probe_main.ts",
    env,
  });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as {
    isDeferred: boolean;
    startFactsPending: boolean;
    sameDecisions: boolean;
    lateFacts: unknown;
    awaitedFacts: unknown;
  };
}

Deno.test("nothing granted: the probe waits, the start decides what an awaited probe decides, and the late facts are the awaited ones", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  for (const env of [{ MCP_SKILL_RUN: "[]" }, { MCP_CONFIRM_MODE: "refuse" }]) {
    const found = await starts([tree.path], { ...env, XDG_CACHE_HOME: tree.at("cache") });
    assert.equal(found.isDeferred, true, JSON.stringify(env));
    assert.equal(found.startFactsPending, true, "the start's facts hold only the placeholder");
    assert.equal(found.sameDecisions, true, "rights, refusal, warnings and cache as when awaited");
    assert.deepEqual(found.lateFacts, found.awaitedFacts);
  }
});

Deno.test("granted (standalone, or a grant row): the probe runs before the worker starts, as it decides the run permission", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const row = JSON.stringify([{ skill: "notes", script: "a.sh" }]);
  for (const env of [{}, { MCP_SKILL_RUN: row }]) {
    const found = await starts([tree.path], { ...env, XDG_CACHE_HOME: tree.at("cache") });
    assert.equal(found.isDeferred, false, JSON.stringify(env));
    assert.equal(found.lateFacts, null);
    assert.equal(found.sameDecisions, true);
  }
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};
const SKILL_LIST = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "skill_list", arguments: {} },
};

/** `skill_list`'s isolation after `messages` piped to `serve` at once. */
async function listedIsolation(
  root: string,
  env: Record<string, string>,
  messages: readonly unknown[],
): Promise<unknown> {
  const run = await runProgram(["serve", root], {
    env,
    stdin: messages.map((message) => JSON.stringify(message) + "\n").join(""),
  });
  const answer = run.stdout.split("\n").filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { id?: number; result?: Record<string, unknown> })
    .find((message) => message.id === 2);
  assert.ok(answer?.result !== undefined, `no skill_list answer: ${run.stdout}\n${run.stderr}`);
  const listed = answer.result.structuredContent as { isolation?: unknown };
  return listed.isolation;
}

/** The isolation `skillgate permissions` probes (at once) for the same command line. */
async function probedIsolation(root: string, env: Record<string, string>): Promise<unknown> {
  const run = await runProgram(["permissions", root, "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  return (JSON.parse(run.stdout) as { isolation?: unknown }).isolation;
}

Deno.test("nothing granted: a skill_list piped with initialize, or sent first, waits for the probe and reports this host's isolation", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const env = { MCP_SKILL_RUN: "[]", XDG_CACHE_HOME: tree.at("cache") };
  const expected = await probedIsolation(tree.path, env);
  assert.ok(expected !== undefined, "permissions reports the isolation");
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  assert.deepEqual(
    await listedIsolation(tree.path, env, [INITIALIZE, initialized, SKILL_LIST]),
    expected,
  );
  // Before any answer went out: the worker asks for the probe itself.
  assert.deepEqual(await listedIsolation(tree.path, env, [SKILL_LIST]), expected);
});

/** One JSON-RPC request over Streamable HTTP; the answer whether sent as JSON or one SSE event. */
async function postRpc(
  url: string,
  message: unknown,
  session?: string,
): Promise<{ session: string | null; body: Record<string, unknown> | null }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session === undefined
        ? {}
        : { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }),
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  const data = text.split("\n").find((line) => line.startsWith("data: "))?.slice(6) ??
    (text.trim() === "" ? null : text);
  return {
    session: response.headers.get("mcp-session-id"),
    body: data === null ? null : JSON.parse(data) as Record<string, unknown>,
  };
}

Deno.test("nothing granted, over HTTP: the probe runs once the worker is ready, and skill_list reports this host's isolation", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const env = { MCP_SKILL_RUN: "[]", XDG_CACHE_HOME: tree.at("cache") };
  const expected = await probedIsolation(tree.path, env);
  await using server = await startHttpProgram(["serve", tree.path], { env });
  const { session } = await postRpc(server.url, INITIALIZE);
  assert.ok(session !== null, server.stderr());
  await postRpc(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
  const { body } = await postRpc(server.url, SKILL_LIST, session);
  const result = body?.result as { structuredContent?: { isolation?: unknown } } | undefined;
  assert.deepEqual(result?.structuredContent?.isolation, expected, JSON.stringify(body));
});
