/**
 * The trusted part's side of the digest isolate (issue 13): `startWorker()`
 * starts it when the worker asks, and ends it with the worker; a trusted
 * part without a host answers that none is started, so the worker hashes
 * itself.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Config } from "../../src/config/config.ts";
import { isolateEntryUrl } from "../../src/entry_points.ts";
import { createDigestIsolateHost } from "../../src/sandbox/digest_isolate_host.ts";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import {
  digestIsolatePermissions,
  type WorkerPermissions,
} from "../../src/sandbox/worker_permissions.ts";
import { makeTree } from "../skills/_tree.ts";

const NOTHING: WorkerPermissions = {
  read: [],
  write: [],
  run: [],
  net: [],
  env: [],
  sys: [],
  ffi: [],
};

/** A serving-worker stand-in that asks for the isolate, has one file hashed, then exits. */
function probeSource(dir: string, path: string): string {
  return `
const { port1, port2 } = new MessageChannel();
port1.onmessage = (event) => {
  if (event.data?.type === "digest-alive") return;
  const seen = event.data?.results?.[0];
  self.postMessage({ type: "exit", code: 0, message: seen ? seen.digest : "no digest" });
};
self.addEventListener("message", (event) => {
  if (event.data?.type === "digest-isolate-ended") {
    self.postMessage({ type: "exit", code: 0, message: "ended: " + event.data.reason });
  }
});
self.postMessage({ type: "digest-isolate", port: port2 }, [port2]);
port1.postMessage({ type: "digest-files", id: 1, files: [{ dir: ${JSON.stringify(dir)}, path: ${
    JSON.stringify(path)
  } }] });
`;
}

Deno.test("startWorker() starts the digest isolate the worker asks for, and ends it with the worker", async () => {
  await using tree = await makeTree({ "alpha/notes.md": "notes\n", "probe.js": "" });
  const realRoot = Deno.realPathSync(tree.path);
  await Deno.writeTextFile(tree.at("probe.js"), probeSource(`${realRoot}/alpha`, "notes.md"));
  const host = createDigestIsolateHost(
    isolateEntryUrl("digests"),
    digestIsolatePermissions([{ path: tree.path, realPath: realRoot }]).permissions,
  );
  const entry = new URL(`file://${tree.at("probe.js")}`);
  const session = startWorker(entry, {} as Config, NOTHING, { digestIsolate: host });
  const exit = await session.exited;
  assert.equal(exit.code, 0);
  // The isolate read the file through the gate (its locations answered by this trusted part).
  assert.equal(exit.message, `sha256:${createHash("sha256").update("notes\n").digest("hex")}`);
  assert.equal(host.isRunning, false);
});

Deno.test("startWorker() without a digest isolate host answers that none is started", async () => {
  await using tree = await makeTree({ "probe.js": "" });
  await Deno.writeTextFile(tree.at("probe.js"), probeSource(tree.path, "notes.md"));
  const entry = new URL(`file://${tree.at("probe.js")}`);
  const session = startWorker(entry, {} as Config, NOTHING);
  const exit = await session.exited;
  assert.equal(exit.code, 0);
  assert.equal(exit.message, "ended: this server starts no digest isolate");
});
