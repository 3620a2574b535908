/**
 * `createMicroBatcher()` (src/sandbox/micro_batch.ts): the one batcher behind
 * the descriptor locator and both folder readers of `fd_locate_client.ts`.
 */

import assert from "node:assert/strict";
import { createMicroBatcher } from "../../src/sandbox/micro_batch.ts";

/** A sender that records each batch and answers when `answerNext()` is called. */
function heldSender(answerOf: (batch: readonly number[]) => readonly string[] | null) {
  const batches: number[][] = [];
  const waiting: (() => void)[] = [];
  return {
    batches,
    send: (batch: readonly number[]) =>
      new Promise<readonly string[] | null>((resolve) => {
        batches.push([...batch]);
        waiting.push(() => resolve(answerOf(batch)));
      }),
    answerNext: () => waiting.shift()?.(),
  };
}

Deno.test("createMicroBatcher() sends one synchronous run as one batch, at most maxBatch, and the rest once it is answered", async () => {
  const sender = heldSender((batch) => batch.map((n) => `a${n}`));
  const ask = createMicroBatcher({ maxBatch: 3, send: sender.send, failClosed: "" });
  const answers = [1, 2, 3, 4, 5].map(ask);
  await Promise.resolve();
  assert.deepEqual(sender.batches, [[1, 2, 3]], "one batch in flight, at most 3");
  const later = ask(6);
  await Promise.resolve();
  assert.equal(sender.batches.length, 1, "nothing more is sent while a batch is in flight");
  sender.answerNext();
  assert.deepEqual(await Promise.all(answers.slice(0, 3)), ["a1", "a2", "a3"]);
  assert.deepEqual(sender.batches[1], [4, 5, 6], "the queued ones go next, together");
  sender.answerNext();
  assert.deepEqual(await Promise.all([...answers.slice(3), later]), ["a4", "a5", "a6"]);
});

Deno.test("createMicroBatcher() fails closed for every request of a batch answered null or short", async () => {
  for (const answerOf of [() => null, () => ["only one"]]) {
    const sender = heldSender(answerOf);
    const ask = createMicroBatcher({ maxBatch: 8, send: sender.send, failClosed: "refused" });
    const answers = [1, 2].map(ask);
    await Promise.resolve();
    sender.answerNext();
    assert.deepEqual(await Promise.all(answers), ["refused", "refused"]);
  }
});

Deno.test("createMicroBatcher() refuses a batch bound that is not a positive integer", () => {
  for (const maxBatch of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => createMicroBatcher({ maxBatch, send: () => Promise.resolve([]), failClosed: "" }),
      RangeError,
    );
  }
});
