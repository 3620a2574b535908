/**
 * The digest cache keeps in memory only digests the index cache does not
 * keep (issue 13: at 10,000 skills a second copy of 40,000 digests under long
 * version keys was ~10 MiB of the worker's heap), without answering anything
 * it did not answer before.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import {
  attachIndexCache,
  createDigestCache,
} from "../../../src/mcp/skills_extension/digest_cache.ts";
import { skillEntries } from "../../../src/mcp/skills_extension/entries.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { type IndexCache, openIndexCache } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

async function catalogOf(path: string, indexCache?: IndexCache): Promise<Catalog> {
  return await buildCatalog(
    [{ path, from: "argument" }],
    DEFAULT_CAPS,
    indexCache === undefined ? {} : { indexCache },
  );
}

const TREE = {
  "alpha/SKILL.md": skillMd("alpha", "First"),
  "alpha/notes.md": "notes\n",
  "alpha/references/guide.md": "# Guide\n",
  "beta/SKILL.md": skillMd("beta", "Second"),
};

Deno.test("digest cache holds no copy of a digest the index cache keeps, and answers it again without reading", async () => {
  await using tree = await makeTree(TREE);
  await using cacheDir = await makeTree({});
  const index = openIndexCache(cacheDir.path, { rootsKey: "t", now: later, warn: () => {} });
  const catalog = await catalogOf(tree.path);
  const files = catalog.skills.flatMap((skill) => skill.files.map((file) => ({ skill, file })));
  attachIndexCache(index);
  try {
    const digests = createDigestCache();
    const first = [];
    for (const { skill, file } of files) {
      const answer = await digests.digestListed(skill.realDir, file);
      assert.equal(answer.isListed, true, file.path);
      first.push(answer.found);
    }
    assert.equal(digests.hashed, files.length);
    assert.equal(digests.size, 0, "the index cache took every digest");
    for (const [at, { skill, file }] of files.entries()) {
      assert.deepEqual(await digests.digest(skill.realDir, file), first[at]);
      assert.deepEqual(digests.listedDigest(skill.realDir, file), first[at]);
    }
    assert.equal(digests.hashed, files.length, "nothing read or hashed again");
    assert.equal(digests.resolved, files.length, "no path-gate resolution either");
    // Written and read back as the one binary table: still answered, still not copied.
    index.flush();
    const entries = await skillEntries(catalog.skills, digests);
    assert.deepEqual(
      entries.flatMap((entry) => entry.resources.map((resource) => resource.digest)),
      first.map((found) => found.digest),
    );
    assert.equal(digests.hashed, files.length);
    assert.equal(digests.size, 0);
  } finally {
    attachIndexCache(null);
  }
});

Deno.test("digest cache keeps nowhere a digest of a version inside the racy window, and reads it again", async () => {
  await using tree = await makeTree(TREE);
  await using cacheDir = await makeTree({});
  // The real clock: files written just now are inside the racy window. Deno gives the change
  // time in whole seconds and mtime can be put back, so an in-place edit in the same second
  // keeps every field of such a version (review r5): its digest may name neither version.
  const index = openIndexCache(cacheDir.path, { rootsKey: "t", warn: () => {} });
  const catalog = await catalogOf(tree.path);
  const files = catalog.skills.flatMap((skill) => skill.files.map((file) => ({ skill, file })));
  attachIndexCache(index);
  try {
    const digests = createDigestCache();
    for (const { skill, file } of files) {
      const answer = await digests.digestListed(skill.realDir, file);
      assert.equal(answer.isListed, false, "not the digest held for the listed version");
    }
    assert.equal(digests.size, 0);
    for (const { skill, file } of files) {
      assert.equal(digests.holds(skill.realDir, file), false);
      await digests.digest(skill.realDir, file);
    }
    assert.equal(digests.hashed, 2 * files.length, "read through the gate again");
    // Past the window (a clock 60 s on), the same versions are kept in memory.
    const settled = createDigestCache({ now: later });
    for (const { skill, file } of files) await settled.digest(skill.realDir, file);
    assert.equal(settled.size, files.length);
  } finally {
    attachIndexCache(null);
  }
});

Deno.test("digest cache: a digest the index cache keeps for another version than the listed one is not the listed version's", async () => {
  await using tree = await makeTree(TREE);
  await using cacheDir = await makeTree({});
  const index = openIndexCache(cacheDir.path, { rootsKey: "t", now: later, warn: () => {} });
  const before = await catalogOf(tree.path);
  const alpha = before.byName.get("alpha");
  const listed = alpha?.files.find((file) => file.path === "notes.md");
  assert.ok(alpha !== undefined && listed !== undefined);
  // Edited after the snapshot listed it: the gate reads the new version.
  await Deno.writeTextFile(tree.at("alpha/notes.md"), "notes, edited\n");
  attachIndexCache(index);
  try {
    const digests = createDigestCache();
    const answer = await digests.digestListed(alpha.realDir, listed);
    assert.equal(answer.isListed, false);
    assert.equal(answer.found.size, "notes, edited\n".length);
    assert.equal(digests.listedDigest(alpha.realDir, listed), null);
    const entries = await skillEntries([alpha], digests);
    assert.equal(entries[0]?.resources.length, alpha.files.length);
    // Not kept as the listed version's entry: the next listing checks again.
    const again = await skillEntries([alpha], digests);
    assert.notEqual(again[0], entries[0]);
  } finally {
    attachIndexCache(null);
  }
});
