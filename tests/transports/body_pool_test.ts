import assert from "node:assert/strict";
import {
  type BodyPool,
  type BodySlot,
  createBodyPool,
  STALL_SWEEPS,
} from "../../src/transports/http/body_pool.ts";

/** A pool on a hand-driven clock whose sweeps run only when the test calls them. */
function manualPool(maxReads: number, reservedForSessions = 0) {
  const clock = { nowMs: 0 };
  const pool = createBodyPool(maxReads, {
    nowMs: () => clock.nowMs,
    stallMs: 100,
    slowGraceMs: 2_000,
    minBytesPerSecond: 1024,
    reservedForSessions,
    schedule: () => () => {},
  });
  /** Advances the clock by `ms` in sweeps of 25 ms. */
  const pass = (ms: number) => {
    for (let waited = 0; waited < ms; waited += 25) {
      clock.nowMs += 25;
      pool.sweep();
    }
  };
  return { pool, clock, pass };
}

async function slotOf(entered: ReturnType<BodyPool["enter"]>): Promise<BodySlot> {
  const slot = await entered;
  assert.ok(typeof slot === "object", `a slot, not ${String(slot)}`);
  return slot;
}

/** Whether `promise` has settled (after the microtasks queued so far). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  await Promise.resolve();
  await Promise.resolve();
  return settled;
}

Deno.test("createBodyPool() never ends a read that is still moving: a new one waits in line for a free slot", async () => {
  const { pool, pass } = manualPool(2);
  const first = await slotOf(pool.enter());
  const second = await slotOf(pool.enter());
  const third = pool.enter();
  // However long the line waits, reads that keep receiving bytes are not ended.
  for (let round = 0; round < 40; round++) {
    pass(25);
    first.progress(100);
    second.progress(100);
  }
  assert.equal(await isSettled(third), false, "waits while both reads move");
  assert.equal(first.signal.aborted, false);
  assert.equal(second.signal.aborted, false);
  first.release();
  const granted = await slotOf(third);
  assert.equal(pool.count(), 2);
  assert.equal(pool.waiting(), 0);
  for (const slot of [second, granted, first]) slot.release();
  assert.equal(pool.count(), 0, "release is idempotent");
});

Deno.test("createBodyPool() hands a stalled read's slot to the line, only after it was quiet across sweeps", async () => {
  const { pool, clock, pass } = manualPool(1);
  const stalled = await slotOf(pool.enter());
  stalled.progress(1);
  // Quiet for long by the clock, but no sweep has seen it quiet yet: not proven stalled.
  clock.nowMs += 10_000;
  const waiting = pool.enter();
  assert.equal(await isSettled(waiting), false);
  assert.equal(stalled.signal.aborted, false);
  pass(25 * STALL_SWEEPS);
  const granted = await slotOf(waiting);
  assert.equal(stalled.signal.aborted, true, "the stalled read is ended (its caller answers 408)");
  granted.release();
});

Deno.test("attack: 256 unfinished bodies cannot end a newcomer's initialize, which waits its turn and is read", async () => {
  const { pool, pass } = manualPool(32);
  const flood: BodySlot[] = [];
  const floodWaits: Promise<unknown>[] = [];
  // The flood arrives in one turn: 32 take the slots, the rest wait; each sends one byte.
  for (let index = 0; index < 256; index++) {
    const entered = pool.enter(0);
    floodWaits.push(entered.then((slot) => {
      if (typeof slot !== "object") return;
      slot.progress(1);
      flood.push(slot);
    }));
  }
  const newcomer = pool.enter(0);
  let newcomerSlot: BodySlot | undefined;
  void newcomer.then((slot) => {
    if (typeof slot === "object") newcomerSlot = slot;
  });
  // The newcomer's body arrives in one piece as soon as it holds a slot; the flood's never does.
  for (let round = 0; round < 400 && newcomerSlot === undefined; round++) {
    pass(25);
    await Promise.resolve();
  }
  assert.ok(newcomerSlot !== undefined, "the newcomer got a slot");
  newcomerSlot.progress(300);
  pass(25 * (STALL_SWEEPS + 1));
  await Promise.resolve();
  assert.equal(newcomerSlot.signal.aborted, false, "its read is never ended while it moves");
  assert.ok(pool.count() <= 32, "the flood never holds more than the shared slots");
  newcomerSlot.release();
  // Clean up: every holder leaves; the line drains into the freed slots, which leave too.
  while (pool.count() > 0 || pool.waiting() > 0) {
    for (const slot of flood.splice(0)) slot.release();
    await Promise.resolve();
    await Promise.resolve();
  }
  await Promise.all(floodWaits);
});

Deno.test("attack: a flood of stalled sessionless bodies never makes a session's request wait (reserved slots)", async () => {
  const { pool } = manualPool(4, 2);
  const flood = await Promise.all(Array.from({ length: 4 }, () => slotOf(pool.enter(0))));
  const queued = pool.enter(0);
  assert.equal(await isSettled(queued), false, "sessionless bodies wait in line");
  const sessionBody = await slotOf(pool.enter(1));
  assert.equal(sessionBody.signal.aborted, false);
  assert.equal(pool.count(), 5, "the session's body took a reserved slot");
  // The reserve is for rank 1 only: the queued sessionless body still waits.
  assert.equal(await isSettled(queued), false);
  sessionBody.release();
  assert.equal(await isSettled(queued), false, "a freed reserved slot is not a shared one");
  flood[0]?.release();
  const granted = await slotOf(queued);
  for (const slot of [...flood, granted]) slot.release();
});

Deno.test("attack: stalled session bodies give way too, so a newcomer's initialize is never locked out", async () => {
  const { pool, pass } = manualPool(2, 1);
  const stalledSessions = await Promise.all(
    Array.from({ length: 3 }, () => slotOf(pool.enter(1))),
  );
  const newcomer = pool.enter(0);
  assert.equal(await isSettled(newcomer), false);
  pass(100 + 25 * STALL_SWEEPS);
  const granted = await slotOf(newcomer);
  assert.ok(stalledSessions.some((slot) => slot.signal.aborted));
  for (const slot of [...stalledSessions, granted]) slot.release();
});

Deno.test("attack: a body that trickles bytes below the minimum rate gives its slot to the line", async () => {
  const { pool, pass } = manualPool(1);
  const trickle = await slotOf(pool.enter());
  const waiting = pool.enter();
  // One byte every 50 ms: never quiet for the stall time, but 20 bytes/s.
  for (let round = 0; round < 200 && !trickle.signal.aborted; round++) {
    pass(50);
    trickle.progress(1);
  }
  assert.equal(trickle.signal.aborted, true);
  (await slotOf(waiting)).release();
});

Deno.test("createBodyPool() lets a waiting read leave when its client goes or its wait times out", async () => {
  const { pool } = manualPool(1);
  const holder = await slotOf(pool.enter());
  const client = new AbortController();
  const gone = pool.enter(0, { signal: client.signal });
  client.abort();
  assert.equal(await gone, "aborted");
  const late = await pool.enter(0, { timeoutMs: 1 });
  assert.equal(late, "timed-out");
  assert.equal(pool.waiting(), 0);
  holder.release();
  assert.equal(pool.count(), 0);
});
