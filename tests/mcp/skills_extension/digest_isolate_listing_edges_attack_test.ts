// Review r6: the digest isolate's listing pass (s13) must give exactly the worker's own catalog on
// the walk's edge cases as well (no wrong result where the isolate's answer is used), and the
// worker's plausibility check of that answer (review r6) must not refuse a real listing.

import assert from "node:assert/strict";
import { type Caps, DEFAULT_CAPS } from "../../../src/caps.ts";
import { isolateEntryUrl } from "../../../src/entry_points.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestParentPort,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import { extensionView, skillEntries } from "../../../src/mcp/skills_extension/entries.ts";
import { createDigestIsolateHost } from "../../../src/sandbox/digest_isolate_host.ts";
import { digestIsolatePermissions } from "../../../src/sandbox/worker_permissions.ts";
import { loadSkill } from "../../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { RACY_WINDOW_MS } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd, type TreeEntry } from "../../skills/_tree.ts";

function trustedParent(root: string) {
  const permissions = digestIsolatePermissions([
    { path: root, realPath: Deno.realPathSync(root) },
  ]).permissions;
  const host = createDigestIsolateHost(isolateEntryUrl("digests"), permissions);
  const target = new EventTarget();
  const parent: DigestParentPort = {
    postMessage(message) {
      if (message.type === "digest-isolate") {
        host.start(message.port, (ended) => {
          target.dispatchEvent(new MessageEvent("message", { data: ended }));
        });
      }
      if (message.type === "digest-isolate-stop") host.stop();
    },
    addEventListener: (type, listener) => target.addEventListener(type, listener as EventListener),
    removeEventListener: (type, listener) =>
      target.removeEventListener(type, listener as EventListener),
  };
  return { parent, host };
}

function shape(catalog: Catalog): unknown {
  return {
    skills: catalog.skills.map((skill) => ({
      name: skill.name,
      files: skill.files,
      bytes: skill.bytes,
      filesTruncated: skill.filesTruncated,
    })),
    problems: catalog.problems,
  };
}

Deno.test("attack: on the walk's edge cases the catalog the digest isolate listed is exactly the worker's own, and every listing it gave was used", async () => {
  const files: Record<string, TreeEntry> = {};
  const names: string[] = [];
  const add = (name: string, entries: Record<string, TreeEntry>, md = "SKILL.md") => {
    names.push(name);
    files[`${name}/${md}`] = skillMd(name);
    for (const [rel, entry] of Object.entries(entries)) files[`${name}/${rel}`] = entry;
  };
  // First in name order: the 64 folders held before the isolate starts, so every edge case
  // below is listed there.
  for (let index = 0; index < 80; index++) {
    add(`a-plain-${String(index).padStart(2, "0")}`, { "references/guide.md": `${index}\n` });
  }
  add("lower-case", { "notes.md": "n\n" }, "skill.md");
  add("both-cases", { "skill.md": "second\n", "notes.md": "n\n" });
  add("unicode-order", {
    "z.md": "z\n",
    "\u00e9t\u00e9.md": "e\n",
    "\u{1D49C}.md": "astral\n",
    "\uFB01le.md": "ligature\n",
    "a b/c d.md": "spaces\n",
    "a.md": "a\n",
    "a/b.md": "nested\n",
    "A.md": "upper\n",
    "empty.md": "",
  });
  add("refused-names", {
    ".hidden/x.md": "h\n",
    "node_modules/m.js": "m\n",
    "Node_Modules/n.js": "n\n",
    "bad\u0007bell.md": "b\n",
    "per%cent.md": "p\n",
    "ok.md": "ok\n",
  });
  add("deep", {
    "d1/d2/d3/d4/d5/d6/d7/d8/file.md": "deep\n",
    "d1/x.md": "x\n",
  });
  add(
    "many-folders",
    Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [`f${String(index).padStart(2, "0")}/x.md`, "x\n"]),
    ),
  );
  add("nested", { "inner/SKILL.md": skillMd("inner"), "inner/x.md": "x\n", "top.md": "t\n" });
  await using tree = await makeTree(files);
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
  const caps: Caps = { ...DEFAULT_CAPS, maxFoldersPerSkill: 8 };
  const { parent, host } = trustedParent(tree.path);
  const cache = createDigestCache();
  const helper = createDigestHelper(cache, parent);
  // Folders the isolate was asked to list, and those whose answer the worker did not use.
  let asked = 0;
  const unused: string[] = [];
  const there = await buildCatalog([{ path: tree.path, from: "argument" }], caps, {
    onLoaded: (skill) => helper.offer(skill),
    load: (candidate, loadCaps) => {
      const listed = helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null;
      if (listed !== null) {
        asked++;
        listed.then((made) => made === null && unused.push(candidate.name));
      }
      return loadSkill(candidate, loadCaps, undefined, { listedElsewhere: listed });
    },
  });
  helper.finish();
  for (let waited = 0; host.isRunning && waited < 20_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const here = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  assert.deepEqual(shape(there), shape(here));
  assert.equal(helper.hasFailed, false);
  assert.ok(helper.listed > 0, "the isolate listed folders");
  // Every edge case was listed there (the 64 folders held before it started are plain ones),
  // and every listing the isolate gave was used.
  assert.ok(asked >= names.length - 64, `only ${asked} folders were listed in the isolate`);
  assert.deepEqual(unused, [], "listings the worker refused (or the isolate did not give)");
  const manifest = (entries: Awaited<ReturnType<typeof skillEntries>>) =>
    entries.flatMap((entry) => entry.resources.map((r) => `${r.uri} ${r.digest} ${r.size}`));
  const skills = extensionView(there).skills;
  assert.deepEqual(
    manifest(await skillEntries(skills, cache)),
    manifest(await skillEntries(skills, createDigestCache())),
  );
});
