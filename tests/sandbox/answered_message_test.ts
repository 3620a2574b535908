/**
 * The worker's `answered` report (issue 13, s17): the trusted part's
 * start-up heap compaction waits for the worker's first answer instead of
 * running on `ready`, where its helper threads took the CPU from the SDK's
 * handling of `initialize`. These tests pin how the
 * report is read, when `startWorker()` resolves it, and that the real worker
 * sends it after serving.
 */

import assert from "node:assert/strict";
import { parseWorkerMessage } from "../../src/sandbox/messages.ts";
import { createWorkerIsolate, startWorker } from "../../src/sandbox/worker_host.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";
import type { Config } from "../../src/config/config.ts";
import { runProgram } from "../support/program.ts";
import { INITIALIZE } from "../support/mcp_messages.ts";

const NOTHING: WorkerPermissions = {
  read: [],
  write: [],
  run: [],
  net: [],
  env: [],
  sys: [],
  ffi: [],
};

/** Whether `promise` has settled by the time the microtasks queued now have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol("pending");
  return await Promise.race([promise.then(() => true, () => true), Promise.resolve(pending)]) !==
    pending;
}

/** Runs `body` with a probe worker whose entry module is `source` (plain JavaScript). */
async function withProbe(source: string, body: (entry: URL) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-answered-" });
  try {
    const entry = new URL(`file://${dir}/entry.js`);
    await Deno.writeTextFile(entry, source);
    await body(entry);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const READY = '{ type: "ready", skillCount: 0, errorCount: 0, warningCount: 0, problemLines: [] }';

Deno.test("parseWorkerMessage() reads `answered` as a bare report: nothing else the worker put in it is kept", () => {
  assert.deepEqual(parseWorkerMessage({ type: "answered", code: 0, path: "/etc/shadow" }), {
    type: "answered",
  });
});

Deno.test("startWorker() resolves `answered` on the worker's `answered` report, not on `ready`", async () => {
  // The probe reports ready at once, and answered only when told to (an overlay message).
  const source = `self.onmessage = (event) => {
  if (event.data?.type === "start") self.postMessage(${READY});
  if (event.data?.type === "overlay") self.postMessage({ type: "answered" });
  if (event.data?.type === "shutdown") self.postMessage({ type: "exit", code: 0 });
};\n`;
  await withProbe(source, async (entry) => {
    const worker = createWorkerIsolate(entry, NOTHING);
    const session = startWorker(entry, {} as Config, NOTHING, { worker });
    await session.ready;
    assert.equal(await isSettled(session.answered), false, "resolved on ready");
    session.postOverlay({ overlay: { overrides: [], problems: [] }, caps: {} } as never);
    await session.answered;
    session.shutdown();
    assert.equal((await session.exited).code, 0);
  });
});

Deno.test("startWorker(): a worker that exits without an `answered` report leaves `answered` pending (no compaction)", async () => {
  const source = `self.onmessage = (event) => {
  if (event.data?.type === "start") {
    self.postMessage(${READY});
    self.postMessage({ type: "exit", code: 3 });
  }
};\n`;
  await withProbe(source, async (entry) => {
    const worker = createWorkerIsolate(entry, NOTHING);
    const session = startWorker(entry, {} as Config, NOTHING, { worker });
    assert.equal((await session.exited).code, 3);
    assert.equal(await isSettled(session.answered), false);
  });
});

Deno.test("the serving worker reports `answered` after `ready`, once it answered `initialize` over stdio", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-answered-root-" });
  try {
    await Deno.mkdir(`${root}/hello`);
    await Deno.writeTextFile(
      `${root}/hello/SKILL.md`,
      "---\nname: hello\ndescription: Says hello when asked to greet someone.\n---\nSay hello.\n",
    );
    const { code, stdout, stderr } = await runProgram(["serve", root], {
      entry: "tests/support/answered_order_main.ts",
      stdin: `${INITIALIZE}\n`,
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /"serverInfo"/, "initialize was not answered");
    const reports = stderr.split("\n").filter((line) => line.startsWith("report "));
    assert.deepEqual(reports, ["report ready", "report answered", "report exit 0"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
