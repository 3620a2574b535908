/**
 * `serve` creates the worker early, with the predicted permission set, while
 * the isolation probe runs (issue 13), and `startWorker()` attaches its
 * handlers only after the probe. Attack (review of that change): a worker that
 * fails while its modules load, before those handlers exist.
 */

import assert from "node:assert/strict";
import { createWorkerIsolate, startWorker } from "../../src/sandbox/worker_host.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";
import type { Config } from "../../src/config/config.ts";

const NOTHING: WorkerPermissions = {
  read: [],
  write: [],
  run: [],
  net: [],
  env: [],
  sys: [],
  ffi: [],
};

Deno.test("attack: an early worker that fails while loading, before startWorker(), ends the session with skillgate's message instead of crashing the trusted part", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-early-worker-" });
  try {
    const entry = new URL(`file://${dir}/entry.js`);
    await Deno.writeTextFile(entry, 'throw new Error("a module failed to load");\n');
    const worker = createWorkerIsolate(entry, NOTHING);
    // Wait until the failure has reached this side (this listener does not handle it).
    await new Promise((resolve) => worker.addEventListener("error", resolve, { once: true }));
    const session = startWorker(entry, {} as Config, NOTHING, { worker });
    const exit = await session.exited;
    assert.equal(exit.code, 1);
    assert.match(exit.message ?? "", /Internal error in the worker: .*a module failed to load/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
