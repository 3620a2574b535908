/**
 * A moment without a free descriptor is waited out while other reads get
 * theirs (contention), and given up when none does (a limit too low) or
 * after the longest wait (s13: 93 of 1,100 skills were left out of the first
 * `skills/list` under `ulimit -n 256` on a loaded machine when a fixed 2 s
 * ran out while the digest isolate's reads were still progressing).
 */

import assert from "node:assert/strict";
import {
  descriptorProgressBuffer,
  descriptorShortagesGivenUp,
  retryingOnDescriptorShortage,
} from "../../src/files/descriptor_shortage.ts";

/** An error shaped as Deno's for EMFILE. */
function tooManyOpenFiles(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { code: "EMFILE" });
}

/** A read that fails for want of a descriptor until `untilMs` have passed, then succeeds. */
function shortFor(untilMs: number): () => Promise<string> {
  const startedMs = performance.now();
  return () =>
    performance.now() - startedMs < untilMs
      ? Promise.reject(tooManyOpenFiles())
      : Promise.resolve("read");
}

Deno.test("a shortage no read progresses through is given up after one window, and counted", async () => {
  const before = descriptorShortagesGivenUp();
  let calls = 0;
  await assert.rejects(
    retryingOnDescriptorShortage(
      () => {
        calls++;
        return Promise.reject(tooManyOpenFiles());
      },
      3,
      1,
    ),
    /Too many open files/,
  );
  assert.equal(calls, 3);
  assert.equal(descriptorShortagesGivenUp(), before + 1);
});

Deno.test("contention: a shortage outlasting several windows is waited out while other reads get descriptors", async () => {
  const before = descriptorShortagesGivenUp();
  // Other readers of this isolate keep getting descriptors (the page's other files).
  let isOthersReading = true;
  const others = (async () => {
    while (isOthersReading) {
      await retryingOnDescriptorShortage(() => Promise.resolve());
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  try {
    // A window is 3 tries 5 ms apart (~15 ms); the shortage lasts ~5 windows.
    const read = await retryingOnDescriptorShortage(shortFor(80), 3, 5, 10_000);
    assert.equal(read, "read");
    assert.equal(descriptorShortagesGivenUp(), before, "a shortage waited out is not counted");
  } finally {
    isOthersReading = false;
    await others;
  }
});

Deno.test("the longest wait bounds one read even while others keep progressing", async () => {
  let isOthersReading = true;
  const others = (async () => {
    while (isOthersReading) {
      await retryingOnDescriptorShortage(() => Promise.resolve());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  try {
    const startedMs = performance.now();
    await assert.rejects(
      retryingOnDescriptorShortage(() => Promise.reject(tooManyOpenFiles()), 2, 2, 60),
      /Too many open files/,
    );
    const waitedMs = performance.now() - startedMs;
    assert.ok(waitedMs >= 60, `gave up after ${waitedMs} ms, before the longest wait`);
    assert.ok(waitedMs < 5_000, `waited ${waitedMs} ms`);
  } finally {
    isOthersReading = false;
    await others;
  }
});

Deno.test("another isolate's reads, sharing the progress buffer, keep a shortage here waited out", async () => {
  const worker = new Worker(new URL("./_descriptor_progress_worker.ts", import.meta.url), {
    type: "module",
  });
  const replies: string[] = [];
  const next = (type: string) =>
    new Promise<void>((resolve) => {
      const listener = (event: MessageEvent<{ type: string }>) => {
        if (event.data.type !== type) return;
        worker.removeEventListener("message", listener);
        replies.push(type);
        resolve();
      };
      worker.addEventListener("message", listener);
    });
  try {
    worker.postMessage({ type: "share", buffer: descriptorProgressBuffer() });
    const progressing = next("progressing");
    worker.postMessage({ type: "progress" });
    await progressing;
    // Nothing in this isolate gets a descriptor meanwhile: only the other isolate's reads move.
    const read = await retryingOnDescriptorShortage(shortFor(120), 3, 5, 10_000);
    assert.equal(read, "read");
  } finally {
    const stopped = next("stopped");
    worker.postMessage({ type: "stop" });
    await stopped;
    worker.terminate();
  }
  assert.deepEqual(replies, ["progressing", "stopped"]);
});

Deno.test("without the shared buffer, another isolate's reads do not count: the shortage is given up", async () => {
  const worker = new Worker(new URL("./_descriptor_progress_worker.ts", import.meta.url), {
    type: "module",
  });
  const next = (type: string) =>
    new Promise<void>((resolve) => {
      const listener = (event: MessageEvent<{ type: string }>) => {
        if (event.data.type !== type) return;
        worker.removeEventListener("message", listener);
        resolve();
      };
      worker.addEventListener("message", listener);
    });
  try {
    // A plain ArrayBuffer is not adopted: the isolate keeps counting into its own.
    worker.postMessage({ type: "share", buffer: new ArrayBuffer(4) });
    const progressing = next("progressing");
    worker.postMessage({ type: "progress" });
    await progressing;
    await assert.rejects(
      retryingOnDescriptorShortage(shortFor(120), 3, 5, 10_000),
      /Too many open files/,
    );
  } finally {
    const stopped = next("stopped");
    worker.postMessage({ type: "stop" });
    await stopped;
    worker.terminate();
  }
});
