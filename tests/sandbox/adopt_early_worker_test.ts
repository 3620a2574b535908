/**
 * `serve` creates the worker before the rest of the trusted part loads, with
 * the predicted permission set (issue 13); `adoptEarlyWorker()` decides
 * whether that worker may serve. It may only when its set gives exactly the
 * computed rights; otherwise it is ended before it has received anything.
 */

import assert from "node:assert/strict";
import { adoptEarlyWorker } from "../../src/sandbox/worker_prediction.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";

const COMPUTED: WorkerPermissions = {
  read: ["/skills"],
  write: ["/cache/skillgate/index"],
  run: [],
  net: [],
  env: ["LOG_TOKENS"],
  sys: [],
  ffi: [],
};

/** A stand-in worker that records what the decision does to it. */
function recordingWorker(): { worker: Worker; ended: () => number; posted: () => number } {
  let ended = 0;
  let posted = 0;
  const worker = {
    terminate: () => void ended++,
    postMessage: () => void posted++,
  } as unknown as Worker;
  return { worker, ended: () => ended, posted: () => posted };
}

Deno.test("attack: adoptEarlyWorker(): a worker created with a predicted run permission the computed set lacks is ended unused, before it receives anything", () => {
  const early = recordingWorker();
  const predicted = { ...COMPUTED, run: ["/usr/bin/bwrap"] };
  assert.equal(adoptEarlyWorker(early.worker, predicted, COMPUTED), null);
  assert.equal(early.ended(), 1);
  assert.equal(early.posted(), 0);
});

Deno.test("attack: adoptEarlyWorker(): a worker predicted with an index cache folder the computed set dropped (MCP_DATA_DIR) is ended unused", () => {
  const early = recordingWorker();
  const computed = { ...COMPUTED, write: [] };
  assert.equal(adoptEarlyWorker(early.worker, COMPUTED, computed), null);
  assert.equal(early.ended(), 1);
  assert.equal(early.posted(), 0);
});

// (A worker kept for exactly the computed rights: adopt_early_worker_attack_test.ts, with a real
// worker, whose rights adoptEarlyWorker reads from its creation.)

Deno.test("adoptEarlyWorker(): a worker with no prediction to compare is ended; without an early worker there is nothing to keep", () => {
  const early = recordingWorker();
  assert.equal(adoptEarlyWorker(early.worker, null, COMPUTED), null);
  assert.equal(early.ended(), 1);
  assert.equal(adoptEarlyWorker(null, COMPUTED, COMPUTED), null);
});
