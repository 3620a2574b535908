/**
 * Attacks on the anchored inotify watch tree (session 11 review of the lost
 * path-based inotify watcher, findings 1-8): real inotify, real swaps of
 * folders and symlinks in temporary folders. Each fails on a design that
 * watches or lists by path string: an outside folder's names would be
 * reported or watched.
 */

import assert from "node:assert/strict";
import { leaksOutside, treeHarness } from "./_tree_harness.ts";
import {
  MAX_WATCH_DEPTH,
  NOT_UTF8_WHY,
  TOO_DEEP_WHY,
  WATCH_LIMIT_WHY,
} from "../../../src/refresh/inotify/watch_tree.ts";
import { IN_Q_OVERFLOW } from "../../../src/refresh/inotify/events.ts";

Deno.test("the tree watches every folder of the root after its first walk, and reports edits", async () => {
  await using h = await treeHarness();
  assert.deepEqual(h.watched(), [
    h.root,
    `${h.root}/skills`,
    `${h.root}/skills/a`,
    `${h.root}/skills/a/sub`,
    `${h.root}/skills/b`,
  ]);
  assert.ok(h.reports.some((r) => r.type === "walked" && r.path === h.root));
  await Deno.writeTextFile(`${h.root}/skills/a/sub/SKILL.md`, "x");
  await Deno.mkdir(`${h.root}/skills/c`);
  h.settle();
  const changed = h.reports.filter((r) => r.type === "change").map((r) => r.path);
  assert.ok(changed.includes(`${h.root}/skills/a/sub/SKILL.md`));
  assert.ok(changed.includes(`${h.root}/skills/c`));
  assert.ok(h.watched().includes(`${h.root}/skills/c`));
});

Deno.test("finding 1: a folder created, then replaced by a symlink to an outside folder before its event is handled, is never walked through the link", async () => {
  await using h = await treeHarness();
  await Deno.mkdir(`${h.root}/skills/new`);
  await Deno.remove(`${h.root}/skills/new`);
  await Deno.symlink(h.outside, `${h.root}/skills/new`);
  h.settle();
  // The outside folder changes afterwards: were it watched, its names would come back.
  await Deno.writeTextFile(`${h.outside}/secret-dir/secret-sub/secret-2.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/secret-3.txt`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
  assert.ok(!h.watched().includes(`${h.root}/skills/new`));
});

Deno.test("finding 2: a watched folder moved out of the root reports nothing under its old inside path", async () => {
  await using h = await treeHarness();
  await Deno.rename(`${h.root}/skills/a`, `${h.outside}/moved-a`);
  // Queued before the move is handled: events of the moved folder, now outside.
  await Deno.writeTextFile(`${h.outside}/moved-a/secret-early.txt`, "s");
  await Deno.mkdir(`${h.outside}/moved-a/sub/secret-folder`);
  h.settle();
  await Deno.writeTextFile(`${h.outside}/moved-a/secret-late.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/moved-a/sub/secret-late.txt`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
  assert.ok(!h.watched().some((path) => path.startsWith(`${h.root}/skills/a`)));
  // The move itself is reported at the old inside path (the worker reads it again).
  assert.ok(h.reports.some((r) => r.type === "change" && r.path === `${h.root}/skills/a`));
});

Deno.test("finding 3: a folder swapped for a link to an outside folder between its watch and its listing lists nothing outside", async () => {
  let swapped = false;
  let outsideFolder = "";
  let rootFolder = "";
  await using h = await treeHarness({
    afterCheck: (path) => {
      if (swapped || rootFolder === "" || path !== `${rootFolder}/skills/a`) return;
      swapped = true;
      Deno.renameSync(path, `${outsideFolder}/a-away`);
      // The outside folder holds a sub-folder of the same name as the moved one's: a walk
      // that follows the link by path would watch it.
      Deno.mkdirSync(`${outsideFolder}/secret-dir/sub`);
      Deno.symlinkSync(`${outsideFolder}/secret-dir`, path);
    },
  });
  outsideFolder = h.outside;
  rootFolder = h.root;
  // Watched again from the start, so the hook fires in the walk.
  h.tree.unsubscribe(1);
  h.tree.subscribe(1, h.root, h.root);
  h.settle();
  assert.ok(swapped);
  await Deno.writeTextFile(`${h.outside}/secret-dir/secret-sub/secret-2.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/secret-dir/secret-4.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/secret-dir/sub/secret-5.txt`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
});

Deno.test("finding 4: an overflowed queue that lost a move-out drops every watch, walks again and asks for a rescan", async () => {
  await using h = await treeHarness();
  const max = Number((await Deno.readTextFile("/proc/sys/fs/inotify/max_queued_events")).trim());
  // Fill the kernel queue without reading it: three events a file (create, modify, close).
  const flood = `${h.root}/skills/b`;
  for (let i = 0; i < Math.ceil(max / 3) + 100; i++) Deno.writeTextFileSync(`${flood}/f${i}`, "x");
  // Lost in the overflow: the move out, and what happens in the moved folder.
  await Deno.rename(`${h.root}/skills/a`, `${h.outside}/moved-a`);
  // Finding 7: a folder made while the queue overflows is watched by the walk after it.
  await Deno.mkdir(`${h.root}/skills/made-in-overflow`);
  h.settle();
  assert.ok(h.reports.some((r) => r.type === "rescan" && r.path === h.root));
  assert.ok(h.watched().includes(`${h.root}/skills/made-in-overflow`));
  assert.ok(!h.watched().some((path) => path.startsWith(`${h.root}/skills/a`)));
  await Deno.writeTextFile(`${h.outside}/moved-a/secret-late.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/moved-a/sub/secret-late.txt`, "s");
  await Deno.writeTextFile(`${h.root}/skills/made-in-overflow/SKILL.md`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
  assert.ok(
    h.reports.some((r) => r.path === `${h.root}/skills/made-in-overflow/SKILL.md`),
    "the folder made during the overflow is watched",
  );
});

Deno.test("finding 4 (synthetic): IN_Q_OVERFLOW drops every watch before the next event", async () => {
  await using h = await treeHarness();
  const before = h.tree.watchedFolders();
  const aWd = [...before].find(([, path]) => path === `${h.root}/skills/a`)![0];
  h.tree.handle([
    { wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" },
    // An event of a watch that was in the tree before the overflow: discarded.
    { wd: aWd, mask: 0x100, cookie: 0, name: "secret-after-overflow" },
  ]);
  assert.equal(h.tree.watchCount, 0);
  assert.ok(!h.reports.some((r) => r.path.includes("secret")));
  h.settle();
  assert.equal(h.tree.watchCount, before.size);
});

Deno.test("finding 5: the first walk racing a parent swapped for a link watches nothing outside", async () => {
  let swapped = false;
  let outsideFolder = "";
  let rootFolder = "";
  await using h = await treeHarness({
    afterCheck: (path) => {
      // The parent of `a/sub` is exchanged with a link right after it was checked, before its
      // sub-folders are opened.
      if (swapped || rootFolder === "" || path !== `${rootFolder}/skills`) return;
      swapped = true;
      Deno.renameSync(path, `${outsideFolder}/skills-away`);
      Deno.mkdirSync(`${outsideFolder}/secret-dir/a/secret-deep`, { recursive: true });
      Deno.symlinkSync(`${outsideFolder}/secret-dir`, path);
    },
  });
  outsideFolder = h.outside;
  rootFolder = h.root;
  h.tree.unsubscribe(1);
  h.tree.subscribe(1, h.root, h.root);
  // Walked in one go, no event read in between: the worst order.
  while (h.tree.step(1_000));
  h.settle();
  assert.ok(swapped);
  await Deno.writeTextFile(`${h.outside}/secret-dir/a/secret-deep/secret.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/secret-dir/secret-sub/secret.txt`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
});

Deno.test("finding 6: past the watch budget the root is unwatched whole, said once, and a new subscription tries again", async () => {
  await using h = await treeHarness({ maxWatches: 3 });
  const lost = h.reports.filter((r) => r.type === "lost");
  assert.deepEqual(lost, [{ type: "lost", path: h.root, detail: `.:${WATCH_LIMIT_WHY}` }]);
  assert.equal(h.tree.watchCount, 0);
  await Deno.writeTextFile(`${h.root}/skills/a/SKILL.md`, "x");
  h.settle();
  assert.ok(!h.reports.some((r) => r.type === "change"));
  await Deno.remove(`${h.root}/skills/a`, { recursive: true });
  h.tree.subscribe(1, h.root, h.root);
  h.settle();
  assert.equal(h.tree.watchCount, 3);
});

Deno.test("finding 8: a rename costs O(changed) opens and watches, whatever the tree holds; walks run in bounded slices", async () => {
  await using h = await treeHarness();
  for (let i = 0; i < 300; i++) {
    await Deno.mkdir(`${h.root}/skills/s${i}/scripts`, { recursive: true });
  }
  h.settle();
  assert.ok(h.tree.watchCount > 600);
  h.calls.clear();
  await Deno.rename(`${h.root}/skills/s7`, `${h.root}/skills/s7-renamed`);
  h.settle();
  const work = (h.calls.get("openAt") ?? 0) + (h.calls.get("addWatch") ?? 0) +
    (h.calls.get("rmWatch") ?? 0);
  // Dropped: s7 and s7/scripts; opened anew: 2 folders, each through 5-6 names from "/".
  assert.ok(work < 40, `a rename did ${work} calls`);
  assert.ok(h.watched().includes(`${h.root}/skills/s7-renamed/scripts`));
  // A walk of the whole root, sliced: each step call handles at most its folders.
  h.tree.unsubscribe(1);
  h.tree.subscribe(1, h.root, h.root);
  h.calls.clear();
  assert.equal(h.tree.step(10), true);
  assert.ok((h.calls.get("addWatch") ?? 0) <= 10);
  h.settle();
});

Deno.test("finding 5 (anchoring alone): a root whose parent was swapped for a link before its walk is not watched through the link", async () => {
  await using h = await treeHarness();
  const base = h.root.slice(0, h.root.lastIndexOf("/"));
  // The real path was taken (the owner's configured root), then a folder above it is exchanged
  // with a link to an outside folder that holds a folder of the same name: no event can tell,
  // nothing above the root is watched.
  await Deno.mkdir(`${base}/p/r/inside-sub`, { recursive: true });
  await Deno.mkdir(`${h.outside}/r/secret-sub`, { recursive: true });
  await Deno.rename(`${base}/p`, `${base}/p-away`);
  await Deno.symlink(h.outside, `${base}/p`);
  const before = h.tree.watchCount;
  h.tree.subscribe(2, `${base}/p/r`, `${base}/p/r`);
  h.settle();
  assert.equal(h.tree.watchCount, before, "nothing watched through the link");
  await Deno.writeTextFile(`${h.outside}/r/secret-sub/secret.txt`, "s");
  await Deno.writeTextFile(`${h.outside}/r/secret-2.txt`, "s");
  h.settle();
  assert.deepEqual(leaksOutside(h), []);
  h.tree.unsubscribe(2);
});

Deno.test("hA-1 (r17): a deep chain with a side folder at every level, renamed, re-opens each folder once from its held parent; past the depth bound folders are said lost, never opened", async () => {
  await using h = await treeHarness();
  const openFds = () => [...Deno.readDirSync("/proc/self/fd")].length;
  const fdsBefore = openFds();
  const depth = MAX_WATCH_DEPTH - 2;
  // A comb: every level holds the next level and a side folder (its parent's descriptor is
  // needed twice, so held across the walk below it).
  let at = `${h.root}/skills/deep`;
  for (let level = 0; level < depth; level++) {
    await Deno.mkdir(`${at}/side`, { recursive: true });
    at = `${at}/d`;
  }
  await Deno.mkdir(at, { recursive: true });
  h.settle();
  const folders = h.watched().filter((path) => path.startsWith(`${h.root}/skills/deep`)).length;
  assert.equal(folders, 2 * depth + 1);
  h.calls.clear();
  await Deno.rename(`${h.root}/skills/deep`, `${h.root}/skills/deep2`);
  h.settle();
  const opens = h.calls.get("openAt") ?? 0;
  // One open a folder, plus the renamed folder's own re-anchoring from "/".
  assert.ok(opens <= folders + 16, `${opens} openat calls for ${folders} folders`);
  assert.equal(
    h.watched().filter((path) => path.startsWith(`${h.root}/skills/deep2`)).length,
    folders,
  );
  // Every descriptor held for the walks is closed once they are over.
  assert.equal(openFds(), fdsBefore);
  // Three more levels: the one past the bound is lost (named once), not opened.
  await Deno.mkdir(`${at.replace("/deep/", "/deep2/")}/e/f/g`, { recursive: true });
  h.settle();
  assert.ok(
    h.reports.some((r) => r.type === "lost" && r.detail.endsWith(`:${TOO_DEEP_WHY}`)),
    JSON.stringify(h.reports.filter((r) => r.type === "lost")),
  );
  assert.ok(!h.watched().some((path) => path.endsWith("/e/f/g")));
});

Deno.test("hA-5 (r17): a folder the tree cannot watch, its mode flipped in a loop, is said lost once (runs as root: a folder past the depth bound)", async () => {
  await using h = await treeHarness();
  let at = `${h.root}/skills`;
  for (let level = 1; level < MAX_WATCH_DEPTH; level++) at = `${at}/d`;
  await Deno.mkdir(at, { recursive: true });
  h.settle();
  await Deno.mkdir(`${at}/too-deep`);
  h.settle();
  const lost = () => h.reports.filter((r) => r.type === "lost");
  assert.equal(lost().length, 1, JSON.stringify(lost()));
  // Two modes a turn, so inotify does not merge the events; each is an ATTRIB of an unwatched
  // sub-folder, which the tree tries again.
  for (let turn = 0; turn < 20; turn++) {
    await Deno.chmod(`${at}/too-deep`, 0o700);
    await Deno.chmod(`${at}/too-deep`, 0o755);
    h.settle();
  }
  assert.equal(lost().length, 1, JSON.stringify(lost()));
});

Deno.test("hA-6 (r17): overflows in a row re-walk the roots at most once a gap, folded into one re-walk and one rescan", async () => {
  let clockMs = 0;
  await using h = await treeHarness({ minRewalkGapMs: 1_000, nowMs: () => clockMs });
  const watches = h.tree.watchCount;
  const overflowNow = () => h.tree.handle([{ wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" }]);
  overflowNow();
  h.settle();
  assert.equal(h.tree.watchCount, watches);
  assert.equal(h.reports.filter((r) => r.type === "rescan").length, 1);
  h.calls.clear();
  // Five more within the gap: every watch dropped at once, no walk until the gap is over.
  for (let i = 0; i < 5; i++) {
    clockMs += 100;
    overflowNow();
    h.settle();
  }
  assert.equal(h.tree.watchCount, 0);
  assert.equal(h.calls.get("addWatch") ?? 0, 0);
  assert.equal(h.tree.rewalkDueInMs, 500);
  assert.equal(h.reports.filter((r) => r.type === "rescan").length, 1);
  clockMs += 500;
  assert.equal(h.tree.rewalkDueInMs, 0);
  h.settle();
  assert.equal(h.tree.watchCount, watches);
  assert.equal(h.calls.get("addWatch"), watches);
  assert.equal(h.reports.filter((r) => r.type === "rescan").length, 2);
  assert.equal(h.tree.rewalkDueInMs, null);
});

/** Runs `script` in `sh` with `folder` as `$1` (names a string path cannot make). */
async function shell(script: string, folder: string): Promise<void> {
  const { success } = await new Deno.Command("sh", { args: ["-c", script, "sh", folder] }).output();
  assert.ok(success, script);
}

Deno.test("hA-L1, hA-L2 (r17): a folder whose path passes PATH_MAX, and one whose name is not UTF-8, are said lost (NameTooLong, NotUtf8), never silently unwatched", async () => {
  await using h = await treeHarness();
  const long = "n".repeat(250);
  // 17 levels of 250 bytes: past 4,096 bytes, within the depth bound.
  await shell(
    `cd "$1" && for i in $(seq 17); do mkdir ${long} && cd -P ${long} || exit 1; done`,
    `${h.root}/skills/a`,
  );
  await shell(`mkdir "$1/$(printf 'bad\\377')"`, `${h.root}/skills/b`);
  h.settle();
  const lost = h.reports.filter((r) => r.type === "lost").map((r) => r.detail);
  assert.ok(lost.some((detail) => detail.endsWith(":NameTooLong")), JSON.stringify(lost));
  assert.ok(lost.includes(`skills/b/bad\ufffd:${NOT_UTF8_WHY}`), JSON.stringify(lost));
  assert.ok(!h.watched().some((path) => path.includes("bad")));
  await shell(`rm -rf "$1/${long}"`, `${h.root}/skills/a`);
});

Deno.test("hA-1 (r17): descriptors held for a walk are closed when its root is unsubscribed midway or an overflow drops the tree", async () => {
  await using h = await treeHarness();
  for (let i = 0; i < 20; i++) await Deno.mkdir(`${h.root}/skills/s${i}/x/y`, { recursive: true });
  h.settle();
  const openFds = () => [...Deno.readDirSync("/proc/self/fd")].length;
  const fdsBefore = openFds();
  h.tree.unsubscribe(1);
  h.tree.subscribe(1, h.root, h.root);
  assert.equal(h.tree.step(8), true);
  assert.ok(openFds() > fdsBefore, "the walk holds its parents' descriptors");
  h.tree.unsubscribe(1);
  h.settle();
  assert.equal(openFds(), fdsBefore);
  h.tree.subscribe(1, h.root, h.root);
  assert.equal(h.tree.step(8), true);
  h.tree.handle([{ wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" }]);
  h.settle();
  assert.equal(openFds(), fdsBefore);
  assert.ok(h.watched().includes(`${h.root}/skills/s19/x/y`));
});
