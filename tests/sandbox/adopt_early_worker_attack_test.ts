/**
 * Attacks on `adoptEarlyWorker()` with real workers (r3 review, issue 13): the
 * decision must rest on the rights the early worker was created with, not on
 * a set its caller hands in beside it.
 */

import assert from "node:assert/strict";
import { createWorkerIsolate } from "../../src/sandbox/worker_isolate.ts";
import { adoptEarlyWorker } from "../../src/sandbox/worker_prediction.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";

const COMPUTED: WorkerPermissions = {
  read: ["/skills"],
  write: [],
  run: [],
  net: [],
  env: ["LOG_TOKENS"],
  sys: [],
  ffi: [],
};

/** A worker entry that does nothing (a module with no code). */
const IDLE_ENTRY = new URL("data:text/javascript,export%20%7B%7D%3B");

Deno.test("attack: adoptEarlyWorker(): a worker created with a run permission is ended when its caller says it was predicted with exactly the computed set", () => {
  const wider = { ...COMPUTED, run: ["/usr/bin/bwrap"] };
  const early = createWorkerIsolate(IDLE_ENTRY, wider);
  try {
    // The caller's word (a prediction that happens to equal the computed set) is not the worker's.
    const kept = adoptEarlyWorker(early, COMPUTED, COMPUTED);
    assert.equal(kept, null, "a worker holding a run permission the computed set lacks was kept");
  } finally {
    early.terminate();
  }
});

Deno.test("attack: adoptEarlyWorker(): a predicted set changed after the worker was created cannot get that worker kept", () => {
  const predicted = { ...COMPUTED, read: ["/skills", "/home"], run: ["/usr/bin/bwrap"] };
  const early = createWorkerIsolate(IDLE_ENTRY, predicted);
  try {
    // Arrays are shared by reference: a later edit of the prediction must not count.
    (predicted.read as string[]).splice(1);
    (predicted.run as string[]).splice(0);
    assert.equal(adoptEarlyWorker(early, predicted, COMPUTED), null);
  } finally {
    early.terminate();
  }
});

Deno.test("adoptEarlyWorker(): a real worker created with exactly the computed rights is kept", () => {
  const early = createWorkerIsolate(IDLE_ENTRY, { ...COMPUTED, read: [...COMPUTED.read] });
  try {
    assert.equal(adoptEarlyWorker(early, COMPUTED, COMPUTED), early);
  } finally {
    early.terminate();
  }
});

Deno.test("adoptEarlyWorker(): a worker not made by createWorkerIsolate (its rights unknown) is never kept", () => {
  let ended = 0;
  const foreign = { terminate: () => void ended++ } as unknown as Worker;
  assert.equal(adoptEarlyWorker(foreign, COMPUTED, COMPUTED), null);
  assert.equal(ended, 1);
});
