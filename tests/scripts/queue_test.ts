import assert from "node:assert/strict";
import { createRunQueue, RunQueueFullError } from "../../src/scripts/queue.ts";

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

Deno.test("the run queue runs at most maxConcurrent at once, in arrival order", async () => {
  const queue = createRunQueue({ maxConcurrent: 2, maxQueued: 10 });
  const gates = Array.from({ length: 5 }, gate);
  const started: number[] = [];
  const runs = gates.map((g, index) =>
    queue.run(async () => {
      started.push(index);
      await g.opened;
      return index;
    })
  );
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  assert.equal(queue.running(), 2);
  assert.equal(queue.waiting(), 3);
  gates[1]?.open();
  await runs[1];
  await Promise.resolve();
  assert.deepEqual(started, [0, 1, 2]);
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
  assert.equal(queue.running(), 0);
});

Deno.test("the run queue refuses a run beyond its waiting bound", async () => {
  const queue = createRunQueue({ maxConcurrent: 1, maxQueued: 1 });
  const g = gate();
  const first = queue.run(() => g.opened);
  const second = queue.run(() => Promise.resolve("second"));
  assert.equal(queue.hasRoom(), false);
  await assert.rejects(queue.run(() => Promise.resolve("third")), RunQueueFullError);
  g.open();
  await first;
  assert.equal(await second, "second");
});

Deno.test("a cancelled waiting run leaves the queue without running", async () => {
  const queue = createRunQueue({ maxConcurrent: 1, maxQueued: 4 });
  const g = gate();
  const first = queue.run(() => g.opened);
  const controller = new AbortController();
  let ran = false;
  const waiting = queue.run(() => {
    ran = true;
    return Promise.resolve();
  }, controller.signal);
  controller.abort();
  await assert.rejects(waiting, (error: unknown) => (error as DOMException).name === "AbortError");
  assert.equal(queue.waiting(), 0);
  g.open();
  await first;
  assert.equal(ran, false);
  assert.throws(() => createRunQueue({ maxConcurrent: 0, maxQueued: 1 }), RangeError);
});
