// s16 (issue 13): a page whose digests are all held is answered without a promise per file
// (`DigestCache.heldListed`); what it answers must be exactly what the asynchronous lookup
// answers, and a listed version the cache does not hold (an edit keeping path and size) must
// never be answered from a held digest of another version.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  extensionView,
  isManifestComplete,
  skillEntries,
} from "../../../src/mcp/skills_extension/entries.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

Deno.test("heldListed() gives the digest held for exactly the listed version, and null before it is hashed", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
  });
  const [skill] = extensionView(await catalogOf(tree.path)).skills;
  assert.ok(skill !== undefined);
  const cache = createDigestCache({ now: later });
  const guide = skill.files.find((file) => file.path === "references/guide.md");
  assert.ok(guide !== undefined);
  assert.equal(cache.heldListed(skill.realDir, guide), null, "nothing is held before a read");
  const read = await cache.digestListed(skill.realDir, guide);
  assert.equal(read.isListed, true);
  assert.deepEqual(cache.heldListed(skill.realDir, guide), read.found);
  assert.equal(read.found.digest, sha256("guide\n"));
  // A listing without device and inode is never answered from memory.
  const { dev: _dev, ino: _ino, ...bare } = guide;
  assert.equal(cache.heldListed(skill.realDir, bare), null);
});

Deno.test("attack: a file rewritten with the same size keeps no held digest for its new version (heldListed)", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide A\n",
  });
  const first = await catalogOf(tree.path);
  const [skill] = extensionView(first).skills;
  assert.ok(skill !== undefined);
  const cache = createDigestCache({ now: later });
  await skillEntries([skill], cache);
  // Same path, same size, another inode (write to a new file, rename over): another version.
  const path = `${tree.path}/alpha/references/guide.md`;
  await Deno.writeTextFile(`${path}.new`, "guide B\n");
  await Deno.rename(`${path}.new`, path);
  const [edited] = extensionView(await catalogOf(tree.path)).skills;
  assert.ok(edited !== undefined);
  const guide = edited.files.find((file) => file.path === "references/guide.md");
  assert.ok(guide !== undefined);
  assert.equal(cache.heldListed(edited.realDir, guide), null);
  const [entry] = await skillEntries([edited], cache);
  assert.ok(entry !== undefined);
  const listed = entry.resources.find((file) => file.uri.endsWith("references/guide.md"));
  assert.equal(listed?.digest, sha256("guide B\n"));
});

Deno.test("skillEntries() answers a page whose digests are all held with no file read, the same entries as the reads gave", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
    "alpha/scripts/run.py": "print(1)\n",
    "beta/SKILL.md": skillMd("beta", "Second"),
  });
  const catalog = await catalogOf(tree.path);
  const skills = extensionView(catalog).skills;
  const cache = createDigestCache({ now: later });
  // Hash every file through the gate (as the digest isolate or the hash-ahead does) ...
  for (const skill of skills) {
    for (const file of skill.files) await cache.digestListed(skill.realDir, file);
  }
  const resolved = cache.resolved;
  // ... then a page in a fresh memo (another cache object would not share it: same cache, new
  // skills objects from a second build of the unchanged tree).
  const again = extensionView(await catalogOf(tree.path)).skills;
  const entries = await skillEntries(again, cache);
  assert.equal(cache.resolved, resolved, "no file was resolved or read for held digests");
  assert.ok(entries.every(isManifestComplete));
  const fresh = await skillEntries(again, createDigestCache({ now: later }));
  assert.deepEqual(entries, fresh);
});

Deno.test("skillEntries() reads only the files whose digests are not held, in a page that holds the rest", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
    "alpha/references/more.md": "more\n",
  });
  const [skill] = extensionView(await catalogOf(tree.path)).skills;
  assert.ok(skill !== undefined);
  const cache = createDigestCache({ now: later });
  const guide = skill.files.find((file) => file.path === "references/guide.md");
  assert.ok(guide !== undefined);
  await cache.digestListed(skill.realDir, guide);
  assert.equal(cache.resolved, 1);
  const [entry] = await skillEntries([skill], cache);
  assert.ok(entry !== undefined && isManifestComplete(entry));
  assert.equal(cache.resolved, 3, "SKILL.md and more.md were read, guide.md was not read again");
  assert.deepEqual(
    entry.resources.map((file) => [file.uri.split("/").slice(-1)[0], file.digest]),
    [
      ["SKILL.md", sha256(skillMd("alpha", "First"))],
      ["guide.md", sha256("guide\n")],
      ["more.md", sha256("more\n")],
    ],
  );
});
