/**
 * Attacks on the trusted part's side of the digest isolate
 * (`src/sandbox/digest_isolate_host.ts`, issue 13) from a compromised serving
 * worker: the worker may only ask for the one isolate its first build needs.
 */

import assert from "node:assert/strict";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import { createDigestIsolateHost } from "../../src/sandbox/digest_isolate_host.ts";
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

/**
 * A stand-in serving worker: asks for the digest isolate `REQUESTS` times,
 * then asks where descriptor 0 is (answered after every reply to the
 * requests before it), and exits with the number of requests refused.
 */
const GREEDY_WORKER = `
const REQUESTS = 20;
let refused = 0;
self.onmessage = (event) => {
  const data = event.data;
  if (data?.type === "start") {
    for (let index = 0; index < REQUESTS; index++) {
      const { port2 } = new MessageChannel();
      self.postMessage({ type: "digest-isolate", port: port2 }, [port2]);
    }
    self.postMessage({ type: "locate-fd", id: 1, fd: 0 });
  }
  if (data?.type === "digest-isolate-ended") refused++;
  if (data?.type === "locate-fd-reply") self.postMessage({ type: "exit", code: refused });
};
`;

Deno.test("attack: a compromised worker asking for the digest isolate again and again gets one isolate in all", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-digest-greedy-" });
  try {
    const workerEntry = new URL(`file://${dir}/worker.js`);
    const isolateEntry = new URL(`file://${dir}/isolate.js`);
    await Deno.writeTextFile(workerEntry, GREEDY_WORKER);
    await Deno.writeTextFile(isolateEntry, "self.onmessage = () => {};\n");
    const host = createDigestIsolateHost(isolateEntry, NOTHING);
    const session = startWorker(workerEntry, {} as Config, NOTHING, { digestIsolate: host });
    const exit = await session.exited;
    // Every request after the first is refused (the worker hashes in its own thread then),
    // and the session's end ends the one isolate.
    assert.equal(exit.code, 19);
    assert.equal(host.isRunning, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
