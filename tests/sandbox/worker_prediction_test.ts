/**
 * `predictWorkerPermissions()` lets `serve` load the worker's modules while
 * the isolation probe runs (issue 13). The worker created with the predicted
 * set is used only when `sameWorkerOption()` finds it equal to the computed
 * set; these tests pin both halves: the prediction is right on this host for
 * the usual configurations, and any difference in rights is seen.
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { sameWorkerOption } from "../../src/sandbox/worker_set.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";

interface Outcome {
  readonly predicted: Record<string, unknown> | null;
  readonly computed: Record<string, unknown>;
  readonly same: boolean | null;
  readonly calledBeforeProbe: number;
}

async function predictAndCompute(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-predict-" });
  const root = `${base}/skills`;
  await Deno.mkdir(root);
  try {
    // The cache beside the root, never inside it (a cache at a root is not used at all).
    const { code, stdout, stderr } = await runProgram(["serve", root, ...args], {
      entry: "tests/support/predict_main.ts",
      env: { XDG_CACHE_HOME: `${base}/.cache`, ...env },
    });
    assert.equal(code, 0, stderr);
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("predictWorkerPermissions(): standalone (the grant may let scripts run), the prediction gives exactly the computed rights", async () => {
  const outcome = await predictAndCompute([]);
  assert.equal(outcome.calledBeforeProbe, 1);
  if (outcome.predicted === null) return; // no bwrap and no unshare here: nothing predicted
  assert.deepEqual(outcome.predicted, outcome.computed);
  assert.equal(outcome.same, true);
});

Deno.test("predictWorkerPermissions(): a grant that lets nothing run predicts no run permission, as computed", async () => {
  const outcome = await predictAndCompute([], { MCP_SKILL_RUN: "[]" });
  assert.ok(outcome.predicted !== null);
  assert.equal(outcome.predicted["run"], false);
  assert.deepEqual(outcome.predicted, outcome.computed);
});

Deno.test("predictWorkerPermissions(): --http's listen address is predicted as computed", async () => {
  const outcome = await predictAndCompute(["--http=8123"], { MCP_SKILL_RUN: "[]" });
  assert.ok(outcome.predicted !== null);
  assert.deepEqual(outcome.predicted, outcome.computed);
});

Deno.test("predictWorkerPermissions(): --isolation=group is not predicted (the worker starts after the probe)", async () => {
  const outcome = await predictAndCompute(["--isolation=group"]);
  assert.equal(outcome.predicted, null);
  assert.equal(outcome.calledBeforeProbe, 1);
});

Deno.test("sameWorkerOption(): one run entry, read folder or write folder more is a different worker", () => {
  const base: WorkerPermissions = {
    read: ["/skills"],
    write: ["/cache"],
    run: [],
    net: [],
    env: ["LOG_TOKENS"],
    sys: [],
    ffi: [],
  };
  assert.equal(sameWorkerOption(base, { ...base }), true);
  assert.equal(sameWorkerOption(base, { ...base, run: ["/usr/bin/bwrap"] }), false);
  assert.equal(sameWorkerOption(base, { ...base, read: ["/skills", "/etc"] }), false);
  assert.equal(sameWorkerOption(base, { ...base, write: [] }), false);
});
