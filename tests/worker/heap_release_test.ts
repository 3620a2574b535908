/** releaseBuildHeap(): one compacting collection after a large catalog's first build. */

import assert from "node:assert/strict";
import {
  type ExposedGc,
  HEAP_RELEASE_MIN_SKILLS,
  releaseBuildHeap,
} from "../../src/worker/heap_release.ts";
import { TRUSTED_RUNTIME_FLAGS } from "../../src/sandbox/trusted_flags.ts";
import { makeTree } from "../skills/_tree.ts";

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

const HEAP_RELEASE_URL = new URL("../../src/worker/heap_release.ts", import.meta.url).href;

Deno.test("the trusted V8 flags expose gc() in the worker, so a large catalog's build is followed by the collection", async () => {
  await using dir = await makeTree({
    // The worker runs the real collection, with the options it passes to V8.
    "probe.ts": `import { releaseBuildHeap } from ${JSON.stringify(HEAP_RELEASE_URL)};\n` +
      "self.postMessage(releaseBuildHeap(1_000)); self.close();\n",
    "main.ts": "const worker = new Worker(new URL('./probe.ts', import.meta.url), " +
      "{ type: 'module' });\n" +
      "worker.onmessage = (event) => { console.log(event.data); worker.terminate(); };\n",
  });
  const v8Flags = TRUSTED_RUNTIME_FLAGS.filter((flag) => flag.startsWith("--v8-flags="));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--allow-read", ...v8Flags, `${dir.path}/main.ts`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(output.stderr), "");
  assert.equal(new TextDecoder().decode(output.stdout).trim(), "true");
});
