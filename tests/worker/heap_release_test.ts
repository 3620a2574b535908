/** releaseBuildHeap(): one compacting collection after a large catalog's first build. */

import assert from "node:assert/strict";
import {
  type ExposedGc,
  HEAP_RELEASE_MIN_SKILLS,
  releaseBuildHeap,
} from "../../src/worker/heap_release.ts";

function recordingGc(): { collect: ExposedGc; calls: unknown[] } {
  const calls: unknown[] = [];
  return { collect: (options) => void calls.push(options), calls };
}

Deno.test("releaseBuildHeap() runs V8's memory-reducing full collection once for a catalog of 1,000 skills or more", () => {
  const { collect, calls } = recordingGc();
  assert.equal(releaseBuildHeap(HEAP_RELEASE_MIN_SKILLS, collect), true);
  assert.equal(releaseBuildHeap(10_000, collect), true);
  assert.deepEqual(calls, [
    { type: "major", execution: "sync", flavor: "last-resort" },
    { type: "major", execution: "sync", flavor: "last-resort" },
  ]);
});

Deno.test("releaseBuildHeap() leaves a smaller catalog's start-up alone", () => {
  const { collect, calls } = recordingGc();
  assert.equal(releaseBuildHeap(0, collect), false);
  assert.equal(releaseBuildHeap(12, collect), false);
  assert.equal(releaseBuildHeap(HEAP_RELEASE_MIN_SKILLS - 1, collect), false);
  assert.deepEqual(calls, []);
});

Deno.test("releaseBuildHeap() does nothing when the process runs without --expose-gc", () => {
  assert.equal(releaseBuildHeap(10_000, undefined), false);
});

Deno.test("releaseBuildHeap() without a collector uses the gc() the trusted flags expose, with options V8 accepts", () => {
  // Tests run under the trusted flags' V8 flags only when started through them; either way the
  // call must not throw: V8's gc extension reads exactly these options.
  const exposed = typeof (globalThis as { gc?: unknown }).gc === "function";
  assert.equal(releaseBuildHeap(10_000), exposed);
});
