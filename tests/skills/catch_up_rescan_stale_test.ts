// Review r1 (issue 13): after an early `initialize`, the watcher is set up only once requests
// pause (up to 5 s after the catalog is complete), and a catch-up rescan of the roots is what sees
// the edits made before it. That rescan (rebuildCatalog with the roots as the changed paths)
// reuses a skill whose SKILL.md kept its size and mtime, so an edit, a delete or a swap for a
// symlink of any other file, or an in-place SKILL.md edit that keeps size and mtime, stayed
// unseen: the next full skills/list kept the old digest (memoised per skill object) and listed a
// file that was gone.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { createDigestCache } from "../../src/mcp/skills_extension/digest_cache.ts";
import { skillEntries } from "../../src/mcp/skills_extension/entries.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import type { Catalog, Skill } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

function skillOf(catalog: Catalog, name: string): Skill {
  const skill = catalog.skills.find((item) => item.name === name);
  assert.ok(skill !== undefined, `${name} is served`);
  return skill;
}

/** How far the kernel's coarse file-time clock may lag `Date.now()`, in ms (a tick, with room). */
const COARSE_CLOCK_MARGIN_MS = 50;

/**
 * Waits (at most about a second) until the clock is past the second of the file's change time:
 * Deno reports ctime in whole seconds, so an edit within the same second keeps every field of
 * the version (size, mtime set back, ctime) and no version-keyed cache can tell it apart.
 */
async function afterCtimeSecond(path: string): Promise<void> {
  const ctime = Deno.statSync(path).ctime?.getTime() ?? 0;
  // The kernel stamps files from its coarse clock, which may lag Date.now() by a tick (a few
  // ms): wait a margin past the next second, or the edit can land in the same ctime second.
  for (let tries = 0; tries < 40 && Date.now() < ctime + 1_000 + COARSE_CLOCK_MARGIN_MS; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the catch-up rescan does: the roots as the changed paths. */
async function catchUp(catalog: Catalog): Promise<Catalog> {
  const rebuilt = await rebuildCatalog(catalog, catalog.roots.map((root) => root.path), {
    caps: DEFAULT_CAPS,
  });
  return rebuilt.catalog;
}

/** Listed resources of one skill by path: digest. */
async function listedDigests(skill: Skill, cache = createDigestCache()) {
  const [entry] = await skillEntries([skill], cache, { logsLeftOut: false });
  assert.ok(entry !== undefined);
  return new Map(entry.resources.map((item) => [item.uri.split("/").slice(-1)[0], item.digest]));
}

Deno.test("attack: a file edited in place, deleted or swapped for a symlink before the watch is seen by the catch-up rescan's next full listing", async () => {
  await using tree = await makeTree({
    "skills/demo/SKILL.md": skillMd("demo"),
    "skills/demo/edited.md": "before",
    "skills/demo/deleted.md": "doomed",
    "skills/demo/swapped.md": "honest",
    "outside.md": "SECRET",
  });
  const first = await buildCatalog([{ path: tree.at("skills"), from: "argument" }], DEFAULT_CAPS);
  const cache = createDigestCache();
  const before = await listedDigests(skillOf(first, "demo"), cache);
  assert.equal(before.get("edited.md"), sha256("before"));

  // Same size: only the bytes, mtime and ctime change.
  await afterCtimeSecond(tree.at("skills/demo/edited.md"));
  await Deno.writeTextFile(tree.at("skills/demo/edited.md"), "AFTER!");
  await Deno.remove(tree.at("skills/demo/deleted.md"));
  await Deno.remove(tree.at("skills/demo/swapped.md"));
  await Deno.symlink(tree.at("outside.md"), tree.at("skills/demo/swapped.md"));

  const after = await listedDigests(skillOf(await catchUp(first), "demo"), cache);
  assert.equal(after.get("edited.md"), sha256("AFTER!"), "the edited file's digest is current");
  assert.equal(after.has("deleted.md"), false, "a deleted file is not listed");
  assert.equal(
    after.has("swapped.md"),
    false,
    "a file swapped for a link to outside is not listed",
  );
});

Deno.test("attack: SKILL.md edited in place keeping its size and mtime before the watch is seen by the catch-up rescan", async () => {
  await using tree = await makeTree({ "skills/demo/SKILL.md": skillMd("demo", "Old words") });
  const path = tree.at("skills/demo/SKILL.md");
  const first = await buildCatalog([{ path: tree.at("skills"), from: "argument" }], DEFAULT_CAPS);
  const cache = createDigestCache();
  await listedDigests(skillOf(first, "demo"), cache);
  await afterCtimeSecond(path);
  const { mtime, atime } = await Deno.stat(path);
  assert.ok(mtime !== null && atime !== null);
  await Deno.writeTextFile(path, skillMd("demo", "New words"));
  await Deno.utime(path, atime, mtime);

  const rebuilt = skillOf(await catchUp(first), "demo");
  assert.equal(rebuilt.description, "New words");
  const after = await listedDigests(rebuilt, cache);
  assert.equal(after.get("SKILL.md"), sha256(skillMd("demo", "New words")));
});

Deno.test("attack: SKILL.md edited in place keeping its size and mtime gives the new digest once live refresh reloads the skill", async () => {
  await using tree = await makeTree({ "skills/demo/SKILL.md": skillMd("demo", "Old words") });
  const path = tree.at("skills/demo/SKILL.md");
  const first = await buildCatalog([{ path: tree.at("skills"), from: "argument" }], DEFAULT_CAPS);
  const cache = createDigestCache();
  await listedDigests(skillOf(first, "demo"), cache);
  await afterCtimeSecond(path);
  const { mtime, atime } = await Deno.stat(path);
  assert.ok(mtime !== null && atime !== null);
  await Deno.writeTextFile(path, skillMd("demo", "New words"));
  await Deno.utime(path, atime, mtime);
  // What the watcher reports: the edited file.
  const rebuilt = await rebuildCatalog(first, [path], { caps: DEFAULT_CAPS });
  const skill = skillOf(rebuilt.catalog, "demo");
  assert.equal(skill.description, "New words");
  const after = await listedDigests(skill, cache);
  assert.equal(after.get("SKILL.md"), sha256(skillMd("demo", "New words")));
});
