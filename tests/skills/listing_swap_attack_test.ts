/**
 * Review r5: the file listing reuses the entries discovery read (issue 13:
 * one `readdir` per folder), so a skill folder's sub-folder that was a folder
 * then and is a symlink to an outside folder when the listing walks it was
 * read through the link: the outside folder's file names, sizes and times
 * were listed as the skill's files (no byte of them: every reader goes
 * through the gate). A skill's author needs nothing but their own folder:
 * the SKILL.md open (seen with inotify) says when. The same for a file entry
 * swapped for a symlink to an outside file (its size and times). The gate
 * is not involved; the listing must not follow what its entries no longer
 * are.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { discoverRoot } from "../../src/skills/discover.ts";
import { type IndexCache, openIndexCache } from "../../src/skills/index_cache.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

/** Builds `base/root` with `swap` run once, when the build opens SKILL.md (after discovery). */
async function buildSwappingAtOpen(tree: Tree, swap: () => void): Promise<Catalog> {
  let swapped = false;
  installFdLocator((fd) => {
    if (!swapped) {
      swapped = true;
      swap();
    }
    return locateDirectly(fd);
  });
  try {
    return await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS);
  } finally {
    installFdLocator(locateDirectly);
  }
}

function assertNothingOutside(catalog: Catalog, tree: Tree): void {
  const text = JSON.stringify([catalog.skills, catalog.problems]);
  assert.ok(!text.includes("PRIVATE"), `an outside name was listed: ${text}`);
  const sizes = catalog.skills.flatMap((skill) => skill.files.map((file) => file.size));
  assert.ok(!sizes.includes(777), "an outside size was listed");
  assert.ok(!text.includes(tree.at("home")), "an outside host path is named");
}

async function skillAndHome(): Promise<Tree> {
  return await makeTree({
    "root/s/SKILL.md": skillMd("s", "Inside"),
    "root/s/references/guide.md": "inside guide\n",
    "root/s/notes.md": "inside notes\n",
    "home/owner/PRIVATE-key-name.txt": "x".repeat(777),
    "home/owner/PRIVATE-sub/PRIVATE-deeper.txt": "y".repeat(777),
  });
}

Deno.test("attack: a skill's sub-folder swapped for a symlink to an outside folder after discovery lists none of its names or sizes", async () => {
  await using tree = await skillAndHome();
  const catalog = await buildSwappingAtOpen(tree, () => {
    Deno.renameSync(tree.at("root/s/references"), tree.at("root/s-references-old"));
    Deno.symlinkSync(tree.at("home/owner"), tree.at("root/s/references"));
  });
  assertNothingOutside(catalog, tree);
  const skill = catalog.byName.get("s");
  assert.deepEqual(skill?.files.map((file) => file.path), ["SKILL.md", "notes.md"]);
  assert.ok(
    catalog.problems.some((p) => p.path === tree.at("root/s/references")),
    "the changed folder is reported",
  );
});

Deno.test("attack: a skill's file swapped for a symlink to an outside file after discovery lists none of its size or times", async () => {
  await using tree = await skillAndHome();
  const catalog = await buildSwappingAtOpen(tree, () => {
    Deno.removeSync(tree.at("root/s/notes.md"));
    Deno.symlinkSync(tree.at("home/owner/PRIVATE-key-name.txt"), tree.at("root/s/notes.md"));
  });
  assertNothingOutside(catalog, tree);
  const skill = catalog.byName.get("s");
  assert.ok(!skill?.files.some((file) => file.path === "notes.md"), "notes.md is not listed");
});

Deno.test("attack: a skill folder swapped for a symlink to an outside folder after its SKILL.md was known lists nothing through it", async () => {
  await using tree = await makeTree({
    "root/s/SKILL.md": skillMd("s", "Inside"),
    "root/s/references/guide.md": "inside guide\n",
    "home/owner/SKILL.md": skillMd("s", "Outside"),
    "home/owner/references/PRIVATE-key-name.txt": "x".repeat(777),
  });
  await using cacheDir = await makeTree({});
  const first = openIndexCache(cacheDir.path, { rootsKey: "t", now: later, warn: () => {} });
  await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS, {
    indexCache: first,
  });
  first.flush();
  // A warm start opens no SKILL.md: the swap lands after the cache answered, before the listing.
  const real = openIndexCache(cacheDir.path, { rootsKey: "t", now: later, warn: () => {} });
  const swapping: IndexCache = {
    ...real,
    lookup(key, version) {
      const known = real.lookup(key, version);
      Deno.renameSync(tree.at("root/s"), tree.at("root-s-old"));
      Deno.symlinkSync(tree.at("home/owner"), tree.at("root/s"));
      return known;
    },
  };
  const found = await discoverRoot({ path: tree.at("root"), from: "argument" });
  const candidate =
    found.items.flatMap((item) => item.kind === "candidate" ? [item.candidate] : [])[0];
  assert.ok(candidate !== undefined);
  const loaded = await loadSkill(candidate, DEFAULT_CAPS, swapping);
  assert.equal(real.stats.hits, 1, "the swap came after a cache hit");
  const text = JSON.stringify(loaded);
  assert.ok(!text.includes("PRIVATE"), `an outside name was listed: ${text}`);
  assert.deepEqual(loaded.skill?.files.map((file) => file.path), ["SKILL.md"]);
  assert.ok(loaded.problems.some((p) => p.path === tree.at("root/s")));
});
