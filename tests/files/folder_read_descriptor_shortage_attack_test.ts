// Session 15: under a low `ulimit -n` (128-220 at 10,000 skills), the trusted part's `readdir` of an
// open folder (`/proc/self/fd/<fd>`, which takes a descriptor of its own) met EMFILE while the
// build's other reads held every descriptor, and the folder was reported "TooManyEntries or
// unreadable" (discovery: its skills not served) or "not read through its descriptor" (the
// listing: its files left out), blaming the folder. Such a read must answer `busy`, and what the
// asker reports must name the cause and what to do.

import assert from "node:assert/strict";
import { runAlphaProbeAtDescriptorLimit } from "../support/descriptor_limit_probe.ts";

/**
 * In a process whose descriptor limit is 64: opens the folder `alpha` (its descriptor kept), then
 * holds every free descriptor, so the folder readers' `readdir` meets EMFILE, then gives one back
 * for discovery's own open of the folder; prints what each reader answered.
 */
const PROBE = `
import * as fs from "node:fs";
const src = ${JSON.stringify(new URL("../../src/", import.meta.url).href)};
const { loadGateFs, openFolderDescriptor } = await import(src + "files/bounded_read.ts");
const { readFolderDirectlySync, readFolderOrBusySync } = await import(src + "files/fd_listing.ts");
const { answerLocateRequest } = await import(src + "sandbox/fd_locate_answer.ts");
const { folderOpener } = await import(src + "files/folder_beneath.ts");
const { readFoldersExactly } = await import(src + "skills/_read_folder.ts");
const [root] = Deno.args;
const alpha = Deno.realPathSync(root + "/alpha");
await loadGateFs();
// The trusted part's direct calls (s16), bound before the descriptors are taken, as serve does.
const calls = folderOpener()?.calls ?? null;
// Everything lazily loaded is loaded before the descriptors are taken (the runtime itself panics
// when it meets EMFILE), and a first read shows the folder is readable.
const first = readFolderOrBusySync({ fd: openFolderDescriptor(alpha), maxStats: 0 });
await readFoldersExactly([alpha]);
const fd = openFolderDescriptor(alpha);
const held = [];
for (;;) {
  try { held.push(fs.openSync(root + "/alpha/notes.md", "r")); } catch { break; }
}
// None free: the reader's readdir of the open folder gets none.
const direct = readFolderOrBusySync({ fd, maxStats: 0 });
const plain = readFolderDirectlySync({ fd, maxStats: 0 });
const native = readFolderOrBusySync({ fd, maxStats: 0 }, undefined, calls);
const replies = [];
answerLocateRequest(
  { type: "read-folders", id: 1, requests: [{ fd, maxStats: 0 }] },
  (reply) => replies.push(reply),
  [root],
);
// One descriptor free: discovery's own open of the folder gets it, the reader's readdir then none.
fs.closeSync(held.pop());
const [exact] = await readFoldersExactly([alpha]);
held.forEach((at) => fs.closeSync(at));
console.log(JSON.stringify({
  held: held.length,
  first: typeof first === "object" && first !== null ? first.entries.map((e) => e.name) : first,
  direct,
  plain,
  native: calls === null ? "no direct calls" : native,
  reply: replies[0]?.reads,
  exact: exact instanceof Error ? exact.message : exact,
}));
`;

Deno.test({
  name:
    "attack: a folder read that meets EMFILE while every descriptor is held answers busy and is reported as a descriptor shortage, never an unreadable folder",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const result = await runAlphaProbeAtDescriptorLimit<
      Record<string, unknown> & { held: number; exact: string }
    >(PROBE);
    assert.ok(result.held > 0, "the probe held the free descriptors");
    assert.deepEqual(result.first, ["SKILL.md", "notes.md"], "readable with descriptors free");
    assert.equal(result.direct, "busy");
    assert.equal(result.plain, null, "the watcher's reader keeps its null");
    assert.equal(result.native, "busy", "the direct calls' read says busy too");
    assert.deepEqual(result.reply, ["busy"], "the trusted part's answer to an isolate says busy");
    assert.match(result.exact, /EMFILE/);
    assert.match(result.exact, /ulimit -n/);
    assert.doesNotMatch(result.exact, /unreadable|TooManyEntries/);
  },
});
