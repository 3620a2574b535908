/**
 * Attacks on the early worker (issue 13 review, r3): `serve` creates the worker
 * with a predicted permission set before the trusted part has loaded the rest
 * of itself and run the isolation probe. A start-up the probe then refuses, and
 * one whose computed set differs from the prediction, must never let that
 * worker answer a client, on the real program, with the request already
 * waiting on stdin when the program starts.
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "attacker", version: "1.0.0" },
  },
}) + "\n";

/** What the trusted part predicts and computes for `args` under `env` (tests/support/predict_main.ts). */
async function predictAndCompute(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ predicted: unknown; computed: unknown; same: boolean | null }> {
  const { code, stdout, stderr } = await runProgram(args, {
    entry: "tests/support/predict_main.ts",
    env,
  });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

Deno.test("attack: a start-up the probe refuses after the early worker was created (--isolation=sandbox, no sh to probe with) exits 2 and answers nothing, not even a request already waiting on stdin", async () => {
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo") });
  const emptyPath = await Deno.makeTempDir({ prefix: "skillgate-no-sh-" });
  try {
    const args = ["serve", tree.path, "--isolation=sandbox"];
    const env = { PATH: emptyPath, XDG_CACHE_HOME: `${tree.path}/.cache` };
    const outcome = await predictAndCompute(args, env);
    // The precondition of the attack: this start-up does create a worker early.
    assert.notEqual(
      outcome.predicted,
      null,
      "no launcher in the system folders: nothing to attack",
    );
    const run = await runProgram(args, { stdin: INITIALIZE, env });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /--isolation=sandbox: no sandbox here/);
  } finally {
    await Deno.remove(emptyPath, { recursive: true });
  }
});

Deno.test("attack: when the computed set differs from the prediction (no sh on PATH: no launcher runs), the early worker is ended unused: exactly one answer to the waiting request, and a clean exit at EOF", async () => {
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo") });
  const emptyPath = await Deno.makeTempDir({ prefix: "skillgate-no-sh-" });
  try {
    const args = ["serve", tree.path];
    const env = { PATH: emptyPath, XDG_CACHE_HOME: `${tree.path}/.cache` };
    const outcome = await predictAndCompute(args, env);
    assert.notEqual(
      outcome.predicted,
      null,
      "no launcher in the system folders: nothing to attack",
    );
    assert.equal(outcome.same, false, "the prediction should differ here");
    const run = await runProgram(args, { stdin: INITIALIZE, env });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines.length, 1, run.stdout);
    const answer = JSON.parse(lines[0]!) as { id: number; result?: { serverInfo?: unknown } };
    assert.equal(answer.id, 1);
    assert.ok(answer.result?.serverInfo !== undefined, run.stdout);
  } finally {
    await Deno.remove(emptyPath, { recursive: true });
  }
});
