// s11-hG: under `ulimit -n 256`, a cold `skills/list` of 1,100 skills (the digest isolate and the
// page's own hashing holding hundreds of descriptors for a moment each) met EMFILE opening files
// it had to hash; each such file was taken for one that changed, and its skill was left out of
// the page with no problem reported and no refresh to bring it back (113 of 1,100 skills at load
// ~20). A moment without a free descriptor must be waited out; one that lasts is an error the
// client sees (ask again), never a skill silently missing from the listing.

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../../src/files/fd_location.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";
import { connectInMemory } from "./_connect.ts";
import { runAtDescriptorLimit } from "../../support/descriptor_limit_probe.ts";

/**
 * In a process whose descriptor limit is 64: a real server over the in-memory transport; takes
 * every free descriptor, gives them back `releaseMs` later, and meanwhile lists the skills (the
 * files of `demo` not hashed yet); then lists again once they are back. Prints both outcomes.
 */
const PROBE = `
import * as fs from "node:fs";
import { DEFAULT_CAPS } from "${new URL("../../../src/caps.ts", import.meta.url)}";
import { buildCatalog } from "${new URL("../../../src/skills/catalog.ts", import.meta.url)}";
import { createCatalogStore } from "${new URL(
  "../../../src/skills/catalog_store.ts",
  import.meta.url,
)}";
import { connectInMemory } from "${new URL("./_connect.ts", import.meta.url)}";
const [root, releaseText] = Deno.args;
const releaseMs = Number(releaseText);
const store = createCatalogStore(
  await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
);
const session = await connectInMemory(store);
// Everything loaded lazily (node:fs, node:crypto, the handlers, Deno's own set-up) is loaded
// before the descriptors are taken: the runtime itself panics when it meets EMFILE.
await session.request("skills/get", { uri: "skill://warm/SKILL.md" });
const onSignal = () => {};
Deno.addSignalListener("SIGUSR2", onSignal);
await new Promise((resolve) => setTimeout(resolve, 10));
const held = [];
for (;;) {
  try { held.push(fs.openSync(root + "/warm/SKILL.md", "r")); } catch { break; }
}
const released = new Promise((resolve) =>
  setTimeout(() => resolve(held.forEach((fd) => fs.closeSync(fd))), releaseMs)
);
const files = (answer) =>
  Object.fromEntries(answer.skills.map((entry) => [entry.uri, entry.resources.length]));
let during;
try {
  during = { files: files(await session.request("skills/list", {})) };
} catch (error) {
  during = { code: error.code, message: error.message };
}
await released;
Deno.removeSignalListener("SIGUSR2", onSignal);
const after = files(await session.request("skills/list", {}));
await session[Symbol.asyncDispose]();
console.log(JSON.stringify({ held: held.length, during, after }));
`;

/** Runs the probe under `ulimit -n 64` and returns what it printed. */
async function probe(releaseMs: number): Promise<{
  held: number;
  during: { files?: Record<string, number>; code?: number; message?: string };
  after: Record<string, number>;
}> {
  await using tree = await makeTree({
    "warm/SKILL.md": skillMd("warm"),
    "demo/SKILL.md": skillMd("demo"),
    "demo/refs/a.md": "a\n",
    "demo/refs/b.md": "b\n",
    "demo/refs/c.md": "c\n",
    "probe.ts": PROBE,
  });
  return await runAtDescriptorLimit(tree.at("probe.ts"), [tree.path, String(releaseMs)]);
}

const COMPLETE = { "skill://demo/SKILL.md": 4, "skill://warm/SKILL.md": 1 };

Deno.test({
  name:
    "attack: skills/list while every descriptor is held for a moment waits for one and lists every file of every skill",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const result = await probe(200);
    assert.ok(result.held > 0, "the probe held the free descriptors");
    assert.deepEqual(result.during, { files: COMPLETE }, "a skill or file left out of the page");
    assert.deepEqual(result.after, COMPLETE);
  },
});

Deno.test({
  name:
    "attack: skills/list while no descriptor is free for longer than it waits answers an error naming the skill, never a page without it, and lists it once one is free",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // Longer than the page's two rounds of `retryingOnDescriptorShortage` (40 x 50 ms each).
    const result = await probe(6_000);
    assert.ok(result.held > 0, "the probe held the free descriptors");
    assert.equal(result.during.files, undefined, "a page was answered without a skill's files");
    assert.equal(result.during.code, -32603);
    assert.match(result.during.message ?? "", /skill:\/\/demo\/SKILL\.md.*ask again/s);
    assert.ok(!(result.during.message ?? "").includes("/tmp"), "a host path reached the client");
    assert.deepEqual(result.after, COMPLETE, "the next listing read the files again");
  },
});

Deno.test("attack: skills/list while the descriptor location check goes unanswered answers an error naming the skill, never a page without it, and lists it once it answers", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": skillMd("demo"),
    "demo/refs/a.md": "a\n",
  });
  const roots = [{ path: tree.path, from: "argument" as const }];
  const store = createCatalogStore(await buildCatalog(roots, DEFAULT_CAPS));
  await using session = await connectInMemory(store);
  // What the worker's locator answers when the trusted part does not reply in time (fail closed).
  installFdLocator(() => Promise.resolve(""));
  try {
    await assert.rejects(session.request("skills/list", {}), (error: unknown) => {
      const { code, message } = error as { code?: number; message?: string };
      assert.equal(code, -32603, "a page was answered without the skill");
      assert.match(message ?? "", /skill:\/\/demo\/SKILL\.md.*ask again/s);
      assert.ok(!(message ?? "").includes(tree.path), "a host path reached the client");
      return true;
    });
  } finally {
    installFdLocator(locateDirectly);
  }
  const again = await session.request("skills/list", {});
  assert.deepEqual(
    (again.skills as { uri: string; resources: unknown[] }[]).map((entry) => [
      entry.uri,
      entry.resources.length,
    ]),
    [["skill://demo/SKILL.md", 2]],
  );
});
