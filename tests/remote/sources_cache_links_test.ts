/**
 * The fetcher makes, lists and removes folders of the sources cache by name,
 * and Deno's write permission on the cache is lexical: a symlink at a source's
 * folder or its `commits` folder (left from a time the cache folder was not
 * safe) must never be followed (review r14, H5), and only commit-named real
 * folders are ever removed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { freshExtractionDir, swapIn } from "../../src/remote/sources_cache.ts";

const KEY = "acme-skills-0123456789abcdef";

Deno.test("attack: a commits symlink in a source's cache folder is refused, the folder it points to untouched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sources-links-" });
  try {
    const cache = join(dir, "cache");
    const owner = join(dir, "owner-notes");
    await Deno.mkdir(join(cache, KEY), { recursive: true });
    await Deno.mkdir(owner);
    await Deno.writeTextFile(join(owner, "thesis.md"), "mine");
    await Deno.symlink(owner, join(cache, KEY, "commits"));
    await assert.rejects(() => freshExtractionDir(cache, KEY), /not a plain folder/);
    assert.deepEqual([...Deno.readDirSync(owner)].map((entry) => entry.name), ["thesis.md"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a source's cache folder that is a symlink is refused before anything is made in it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sources-links-" });
  try {
    const cache = join(dir, "cache");
    const owner = join(dir, "owner-notes");
    await Deno.mkdir(cache);
    await Deno.mkdir(join(owner, "commits"), { recursive: true });
    await Deno.symlink(owner, join(cache, KEY));
    await assert.rejects(() => freshExtractionDir(cache, KEY), /not a plain folder/);
    assert.deepEqual([...Deno.readDirSync(owner)].map((entry) => entry.name), ["commits"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("swapIn() removes only older commit-named real folders, never a link or another name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sources-links-" });
  try {
    const cache = join(dir, "cache");
    const elsewhere = join(dir, "elsewhere");
    await Deno.mkdir(join(elsewhere, "keep"), { recursive: true });
    const commits = join(cache, KEY, "commits");
    await Deno.mkdir(join(commits, "a".repeat(40)), { recursive: true });
    await Deno.mkdir(join(commits, "notes"));
    await Deno.symlink(elsewhere, join(commits, "b".repeat(40)));
    const extracted = await freshExtractionDir(cache, KEY);
    await swapIn(cache, KEY, extracted, {
      spec: "github:acme/skills",
      commit: "c".repeat(40),
      etag: null,
      etagCommit: null,
      ref: "main",
      checkedAtMs: 0,
      lastModified: null,
      problems: [],
      skills: {},
    });
    assert.deepEqual(
      [...Deno.readDirSync(commits)].map((entry) => entry.name).sort(),
      ["b".repeat(40), "c".repeat(40), "notes"],
    );
    assert.deepEqual([...Deno.readDirSync(elsewhere)].map((entry) => entry.name), ["keep"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
