/**
 * The stdio transport: what it says on stderr about broken input, and how a
 * session closed by an oversized message ends. End to end through the real
 * program, plus the one-line reports on their own.
 */

import assert from "node:assert/strict";
import { describeTransportError } from "../../src/transports/stdio.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import { runProgram } from "../support/program.ts";

const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

/** Parses every stdout line as JSON-RPC 2.0 (throws on anything else) and returns the ids. */
function jsonRpcIds(stdout: string): unknown[] {
  return stdout.split("\n").filter((line) => line !== "").map((line) => {
    const message = JSON.parse(line) as { jsonrpc?: string; id?: unknown };
    assert.equal(message.jsonrpc, "2.0", `stdout holds only JSON-RPC: ${line.slice(0, 200)}`);
    return message.id;
  });
}

Deno.test("stdio skips a line that is not JSON, logs valid JSON that is not JSON-RPC, and still answers the next request", async () => {
  const stdin = [
    INITIALIZE,
    INITIALIZED,
    "this is not json",
    JSON.stringify({ hello: "valid JSON, not JSON-RPC" }),
    TOOLS_LIST,
  ].join("\n") + "\n";
  const run = await runProgram(["serve", "examples/skills"], { stdin });
  assert.equal(run.code, 0, run.stderr);
  const ids = jsonRpcIds(run.stdout);
  assert.ok(ids.includes(1) && ids.includes(2), `answers 1 and 2 arrived: ${ids}`);
  const reports = run.stderr.split("\n")
    .filter((line) => line.startsWith("skillgate: ignored a message that is not valid JSON-RPC: "));
  // The v2 SDK's stdio reader skips a line that is not JSON without reporting
  // it (tolerance for noise on the pipe); valid JSON that is not JSON-RPC is
  // still reported through the transport's onerror.
  assert.equal(reports.length, 1, run.stderr);
  assert.match(reports[0] ?? "", /valid JSON, but not a JSON-RPC 2\.0 request/);
  assert.ok(!run.stdout.includes("skillgate:"), "nothing but JSON-RPC on stdout");
});

Deno.test("stdio: a message over 10 MiB closes the session with a non-zero exit, said on stderr", async () => {
  const huge = `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${
    "x".repeat(11 * 1024 * 1024)
  }"}}`;
  const stdin = [INITIALIZE, INITIALIZED, huge, TOOLS_LIST].join("\n") + "\n";
  const run = await runProgram(["serve", "examples/skills"], { stdin });
  assert.notEqual(run.code, 0, "an oversized message is a failure, not a clean exit");
  assert.match(run.stderr, /^skillgate: a message over 10 MiB closed the session$/m);
  const ids = jsonRpcIds(run.stdout);
  assert.ok(!ids.includes(2), "nothing after the oversized message is answered");
});

Deno.test("stdio, small catalog: messages piped while the catalog loads are answered in order, initialize with the whole catalog in its instructions", async () => {
  // The transport reads while a small catalog loads (issue 13); everything, `initialize` and
  // `ping` too, waits for the catalog, so nothing is answered from a partial one.
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" });
  const list = JSON.stringify({
    jsonrpc: "2.0",
    id: 6,
    method: "tools/call",
    params: { name: "skill_list", arguments: {} },
  });
  const stdin = [INITIALIZE, ping, INITIALIZED, list].join("\n") + "\n";
  const run = await runProgram(["serve", "examples/skills"], { stdin });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(jsonRpcIds(run.stdout), [1, 5, 6], "answered once each, in arrival order");
  const [initialize, , listed] = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const instructions = String(initialize.result.instructions);
  for (const name of ["color-palette", "release-notes"]) {
    assert.ok(instructions.includes(name), `instructions name ${name}: ${instructions}`);
    assert.ok(JSON.stringify(listed.result).includes(name), `skill_list lists ${name}`);
  }
});

Deno.test("describeTransportError() names each failure in one line, reason cut", () => {
  let syntax: Error = new Error("unset");
  try {
    JSON.parse(`not json ${"y".repeat(1000)}\nsecond line`);
  } catch (error) {
    syntax = error as Error;
  }
  const parse = describeTransportError(syntax);
  assert.equal(parse.isOversized, false);
  assert.match(parse.line, /^skillgate: ignored a message that is not valid JSON-RPC: /);
  assert.ok(!parse.line.includes("\n"));
  assert.ok(parse.line.length < 300, `${parse.line.length} characters`);
  const oversized = describeTransportError(
    new Error("ReadBuffer exceeded maximum size of 10485760 bytes"),
  );
  assert.deepEqual(oversized, {
    line: "skillgate: a message over 10 MiB closed the session",
    isOversized: true,
  });
  assert.equal(
    describeTransportError(new Error("read EIO")).line,
    "skillgate: stdio transport error: read EIO",
  );
});
