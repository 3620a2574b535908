import assert from "node:assert/strict";
import { createBodyPool } from "../../src/transports/http/body_pool.ts";

Deno.test("createBodyPool() ends the most stalled read when full, and never refuses", () => {
  let nowMs = 0;
  const pool = createBodyPool(2, () => nowMs);
  const first = pool.enter();
  nowMs = 10;
  const second = pool.enter();
  nowMs = 20;
  first.progress();
  const third = pool.enter();
  assert.equal(second.signal.aborted, true, "the read waiting longest for bytes is ended");
  assert.equal(first.signal.aborted, false);
  assert.equal(third.signal.aborted, false);
  assert.equal(pool.count(), 2);
  first.release();
  third.release();
  first.release();
  assert.equal(pool.count(), 0, "release is idempotent");
});

Deno.test("attack: a flood of stalled sessionless bodies never ends a session's body", () => {
  let nowMs = 0;
  const pool = createBodyPool(4, () => nowMs);
  // The session's body started first, so it is the most stalled of all.
  const sessionBody = pool.enter(1);
  const flood = [];
  for (let index = 0; index < 1_000; index++) {
    nowMs++;
    flood.push(pool.enter(0));
  }
  assert.equal(sessionBody.signal.aborted, false, "rank 1 outlives every rank 0 read");
  assert.equal(pool.count(), 4);
  assert.equal(flood.filter((slot) => !slot.signal.aborted).length, 3);
  // With only rank-1 reads left, a newcomer (initialize: rank 0) still gets a slot.
  for (const slot of flood) slot.release();
  const others = [pool.enter(1), pool.enter(1), pool.enter(1)];
  nowMs++;
  const newcomer = pool.enter(0);
  assert.equal(newcomer.signal.aborted, false);
  assert.equal(sessionBody.signal.aborted, true, "the most stalled rank-1 read gives way");
  for (const slot of [...others, newcomer]) slot.release();
});
