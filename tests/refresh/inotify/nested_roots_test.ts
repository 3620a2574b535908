/**
 * A folder two subscriptions watch (review r17, hA-3): inotify holds one
 * watch per folder, so the tree holds it once and fans its reports out by
 * real path to every subscription whose root holds it, re-based on the
 * path each names its root by. Real inotify on temporary folders.
 */

import assert from "node:assert/strict";
import { treeHarness } from "./_tree_harness.ts";

Deno.test("a flat watch of a folder inside a root, made before the root's: the root still walks below it, both hear its edits, and the flat one outlives the root's", async () => {
  await using h = await treeHarness();
  const owner = `${h.root}/skills/a`;
  h.tree.unsubscribe(1);
  h.settle();
  assert.equal(h.tree.watchCount, 0);
  // The inner folder first, flat (the owner files' watch), then the root around it.
  h.tree.subscribe(2, "/OWNER", owner, true);
  h.settle();
  h.tree.subscribe(1, h.root, h.root);
  h.settle();
  assert.ok(h.watched().includes(`${owner}/sub`), `not walked below it: ${h.watched()}`);
  await Deno.writeTextFile(`${owner}/config.json`, "{}");
  await Deno.writeTextFile(`${owner}/sub/SKILL.md`, "x");
  h.settle();
  const changed = () => h.reports.filter((r) => r.type === "change").map((r) => r.path);
  assert.ok(changed().includes(`${owner}/config.json`), changed().join("\n"));
  assert.ok(changed().includes(`${owner}/sub/SKILL.md`), changed().join("\n"));
  assert.ok(changed().includes("/OWNER/config.json"), changed().join("\n"));
  // Flat: its sub-folders' events are not the owner watch's.
  assert.ok(!changed().includes("/OWNER/sub/SKILL.md"), changed().join("\n"));
  // The root's subscription ends: its tree goes, the inner folder is watched on its own again.
  h.tree.unsubscribe(1);
  h.settle();
  assert.deepEqual(h.watched(), [owner]);
  h.reports.length = 0;
  await Deno.writeTextFile(`${owner}/overrides.json`, "{}");
  h.settle();
  assert.ok(changed().includes("/OWNER/overrides.json"), changed().join("\n"));
  assert.ok(!changed().some((path) => path.startsWith(h.root)), changed().join("\n"));
});

Deno.test("nested roots watched whole: an edit deep inside reaches both, each under its own path", async () => {
  await using h = await treeHarness();
  h.tree.subscribe(2, "/INNER", `${h.root}/skills`);
  h.settle();
  await Deno.writeTextFile(`${h.root}/skills/b/SKILL.md`, "x");
  h.settle();
  const changed = h.reports.filter((r) => r.type === "change").map((r) => r.path);
  assert.ok(changed.includes(`${h.root}/skills/b/SKILL.md`), changed.join("\n"));
  assert.ok(changed.includes("/INNER/b/SKILL.md"), changed.join("\n"));
});

Deno.test("a flat watch covered by a root the watch budget then stops is watched on its own again (not silently deaf)", async () => {
  // Budget 6: the root's 5 folders fit; one more folder stops the root (walked whole or not at all).
  await using h = await treeHarness({ maxWatches: 6 });
  const owner = `${h.root}/skills/a`;
  h.tree.subscribe(2, "/OWNER", owner, true);
  h.settle();
  assert.equal(h.tree.watchCount, 5);
  await Deno.mkdir(`${h.root}/skills/c`);
  await Deno.mkdir(`${h.root}/skills/d`);
  h.settle();
  assert.ok(h.reports.some((r) => r.type === "lost" && r.path === h.root));
  assert.deepEqual(h.watched(), [owner]);
  h.reports.length = 0;
  await Deno.writeTextFile(`${owner}/config.json`, "{}");
  h.settle();
  const changed = h.reports.filter((r) => r.type === "change").map((r) => r.path);
  assert.ok(changed.includes("/OWNER/config.json"), changed.join("\n"));
});
