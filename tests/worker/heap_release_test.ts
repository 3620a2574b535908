/**
 * releaseBuildHeap(): one compacting collection after a large catalog's first build;
 * releaseStartupHeap(): one after a smaller catalog's first answer, or in the trusted part once
 * the worker is ready; never both in one isolate.
 */

import assert from "node:assert/strict";
import {
  type ExposedGc,
  HEAP_RELEASE_MIN_SKILLS,
  releaseBuildHeap,
  releaseStartupHeap,
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

Deno.test("releaseStartupHeap() runs V8's memory-reducing full collection once for a catalog under 1,000 skills or an isolate with none", () => {
  const { collect, calls } = recordingGc();
  assert.equal(releaseStartupHeap(0, collect), true);
  assert.equal(releaseStartupHeap(12, collect), true);
  assert.equal(releaseStartupHeap(HEAP_RELEASE_MIN_SKILLS - 1, collect), true);
  assert.deepEqual(calls, [
    { type: "major", execution: "sync", flavor: "last-resort" },
    { type: "major", execution: "sync", flavor: "last-resort" },
    { type: "major", execution: "sync", flavor: "last-resort" },
  ]);
});

Deno.test("releaseStartupHeap() leaves a large catalog alone: its build was compacted already", () => {
  const { collect, calls } = recordingGc();
  for (const skills of [HEAP_RELEASE_MIN_SKILLS, 10_000, 50_000]) {
    assert.equal(releaseStartupHeap(skills, collect), false);
    // Exactly one of the two collections runs for any catalog size.
    assert.equal(releaseBuildHeap(skills, () => {}), true);
  }
  assert.deepEqual(calls, []);
});

Deno.test("releaseStartupHeap() does nothing when the process runs without --expose-gc", () => {
  assert.equal(releaseStartupHeap(12, undefined), false);
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

Deno.test("releaseStartupHeap() under the trusted V8 flags gives back the young generation a start-up grew", async () => {
  await using dir = await makeTree({
    // Objects that survive a few scavenges grow the young generation (as loading modules does),
    // then die; the collection must leave V8's committed heap smaller than it found it.
    "main.ts": `import { releaseStartupHeap } from ${JSON.stringify(HEAP_RELEASE_URL)};\n` +
      "let keep = [];\n" +
      "for (let round = 0; round < 200; round++) {\n" +
      "  keep.push(Array.from({ length: 2_000 }, (_, i) => ({ round, i })));\n" +
      "  if (keep.length > 20) keep = keep.slice(10);\n" +
      "}\n" +
      "keep = [];\n" +
      "const before = Deno.memoryUsage().heapTotal;\n" +
      "const ran = releaseStartupHeap(12);\n" +
      "console.log(JSON.stringify({ ran, before, after: Deno.memoryUsage().heapTotal }));\n",
  });
  const v8Flags = TRUSTED_RUNTIME_FLAGS.filter((flag) => flag.startsWith("--v8-flags="));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--allow-read", ...v8Flags, `${dir.path}/main.ts`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(output.stderr), "");
  const { ran, before, after } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(ran, true);
  assert.ok(after < before, `committed heap ${before} -> ${after} bytes`);
});
