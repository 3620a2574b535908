// Review r6: a large cold build's readers (the digest isolate's listing pass, both hashers) hold
// hundreds of descriptors for a moment each; under a lower `ulimit -n` a SKILL.md open that met
// that moment failed with EMFILE and its skill was not served (1,100 skills under `ulimit -n 300`:
// 17 to 97 left out). A moment without a free descriptor must be waited out.

import assert from "node:assert/strict";
import { runAlphaProbeAtDescriptorLimit } from "../support/descriptor_limit_probe.ts";

/**
 * In a process whose descriptor limit is 64: takes every free descriptor, gives them back 200 ms
 * later, and meanwhile reads the SKILL.md of `alpha` the build's way; prints the outcome.
 */
const PROBE = `
import * as fs from "node:fs";
import { readSkillMd } from "${new URL("../../src/skills/_read_skill_md.ts", import.meta.url)}";
const [root] = Deno.args;
const dir = root + "/alpha";
const candidate = {
  name: "alpha", baseName: "alpha", dir, realDir: Deno.realPathSync(dir), root,
  skillMdFile: "SKILL.md", entries: [],
};
// Everything loaded lazily (node:fs, node:crypto, Deno's own set-up) is loaded before the
// descriptors are taken: the runtime itself panics when it meets EMFILE.
await readSkillMd(candidate, 65536, { withDigest: true });
const onSignal = () => {};
Deno.addSignalListener("SIGUSR2", onSignal);
await new Promise((resolve) => setTimeout(resolve, 10));
const held = [];
for (;;) {
  try { held.push(fs.openSync(root + "/alpha/notes.md", "r")); } catch { break; }
}
setTimeout(() => held.forEach((fd) => fs.closeSync(fd)), 200);
const read = await readSkillMd(candidate, 65536, { withDigest: true });
Deno.removeSignalListener("SIGUSR2", onSignal);
console.log(JSON.stringify({ held: held.length, ok: read.ok, problem: read.ok ? null : read.problem.detail }));
`;

Deno.test({
  name:
    "attack: a SKILL.md opened while every descriptor is held for a moment is read once one is free, not reported unreadable",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const result = await runAlphaProbeAtDescriptorLimit<
      { held: number; ok: boolean; problem: string | null }
    >(PROBE);
    assert.ok(result.held > 0, "the probe held the free descriptors");
    assert.deepEqual({ ok: result.ok, problem: result.problem }, { ok: true, problem: null });
  },
});
