/**
 * review r18: attacks on hA2's fixes to the anchored inotify watch tree (held
 * parent descriptors, hA-1): real inotify, real folder moves in temporary
 * folders. The descriptor-exhaustion test makes `openat` answer EMFILE for
 * one folder's name through the libc the tree calls (what a process at its
 * `ulimit -n` gets); everything else is the real call.
 */

import assert from "node:assert/strict";
import { leaksOutside, treeHarness } from "./_tree_harness.ts";
import type { Libc } from "../../../src/refresh/inotify/libc.ts";
import { IN_Q_OVERFLOW } from "../../../src/refresh/inotify/events.ts";
import { LISTING_FAILED_WHY, SAME_FOLDER_WHY } from "../../../src/refresh/inotify/watch_tree.ts";

const EMFILE = 24;

Deno.test("attack (r18, hA-1): a held parent moved out of the root between its listing and its children's steps: no child is watched or reported outside", async () => {
  let isMoved = false;
  let root = "";
  let outside = "";
  await using h = await treeHarness({
    afterCheck(path) {
      // The second child of `skills/m` is checked: its parent leaves the root while the first
      // child's step (opened from the parent's held descriptor) is still queued.
      if (isMoved || root === "" || path !== `${root}/skills/m/c2`) return;
      isMoved = true;
      Deno.renameSync(`${root}/skills/m`, `${outside}/m`);
    },
  });
  root = h.root;
  outside = h.outside;
  for (const name of ["c1", "c2"]) {
    await Deno.mkdir(`${h.root}/skills/m/${name}/deeper`, { recursive: true });
  }
  await Deno.mkdir(`${h.outside}/m-secret-probe`, { recursive: true });
  // A new tree walk over the root (the walk holds `skills/m`'s descriptor for c1, c2).
  h.tree.unsubscribe(1);
  h.tree.subscribe(1, h.root, h.root);
  h.settle();
  assert.ok(isMoved, "the hook ran at the worst moment");
  const outsideWatched = h.watched().filter((path) =>
    !path.startsWith(`${h.root}/`) && path !== h.root
  );
  assert.deepEqual(outsideWatched, []);
  assert.deepEqual(leaksOutside(h), []);
  assert.ok(!h.watched().some((path) => path.includes("/m/")), "nothing below the moved folder");
});

Deno.test("attack (r18, r18-1): openat answering EMFILE (the process at its descriptor limit) for a new folder: the folder is said lost and its create reported, never silently unwatched", async () => {
  await using h = await treeHarness();
  const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
  const realOpenAt = libc.openAt;
  libc.openAt = (dirFd, name, flags) => name === "c" ? -EMFILE : realOpenAt(dirFd, name, flags);
  try {
    await Deno.mkdir(`${h.root}/skills/c`);
    h.settle();
  } finally {
    libc.openAt = realOpenAt;
  }
  assert.ok(!h.watched().includes(`${h.root}/skills/c`), "the open failed: not watched");
  // Said lost (live refresh says so once and its re-read covers the folder) ...
  assert.deepEqual(
    h.reports.filter((r) => r.type === "lost"),
    [{ type: "lost", path: h.root, detail: "skills/c:EMFILE" }],
  );
  // ... and its create reported, so the catalog is built again with what it holds.
  assert.ok(
    h.reports.some((r) =>
      r.type === "change" && r.detail === "create" && r.path === `${h.root}/skills/c`
    ),
    `the create of skills/c is reported: ${JSON.stringify(h.reports.slice(-4))}`,
  );
});

for (const [name, errno] of [["ENFILE", 23], ["ENOMEM", 12], ["EIO", 5]] as const) {
  Deno.test(`attack (r18, r18-1): inotify_add_watch or openat answering ${name} during a walk: the folder is said lost, never silently unwatched`, async () => {
    await using h = await treeHarness();
    await Deno.mkdir(`${h.root}/skills/a/deep`, { recursive: true });
    h.settle();
    const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
    const [realOpenAt, realAddWatch] = [libc.openAt, libc.addWatch];
    libc.openAt = (dirFd, at, flags) => at === "a" ? -errno : realOpenAt(dirFd, at, flags);
    libc.addWatch = (fd, path, mask) => {
      const isDeep = Deno.readLinkSync(path).endsWith("/skills/b/deep");
      return isDeep ? -errno : realAddWatch(fd, path, mask);
    };
    try {
      // A new walk (a root subscribed again) meets the error on the open of `a` ...
      h.tree.unsubscribe(1);
      h.tree.subscribe(1, h.root, h.root);
      h.settle();
      // ... and a folder moved in meets it on the watch of `b/deep`.
      await Deno.mkdir(`${h.outside}/b/deep`, { recursive: true });
      await Deno.rename(`${h.outside}/b`, `${h.root}/skills/b`);
      h.settle();
    } finally {
      libc.openAt = realOpenAt;
      libc.addWatch = realAddWatch;
    }
    const why = name === "EIO" ? "errno 5" : name;
    const lost = h.reports.filter((r) => r.type === "lost").map((r) => r.detail).sort();
    assert.deepEqual(lost, [`skills/a:${why}`, `skills/b/deep:${why}`]);
  });
}

Deno.test("attack (r18, r18-1): the descriptor table full when a watched folder is listed: the folder is said lost (its sub-folders are not watched), never silently half-watched", async () => {
  const fillers: Deno.FsFile[] = [];
  let root = "";
  await using h = await treeHarness({
    afterCheck(path) {
      // Right before `skills/x` is listed, this process is at its `ulimit -n` (EMFILE).
      if (root === "" || path !== `${root}/skills/x` || fillers.length > 0) return;
      try {
        for (let i = 0; i < 1_000_000; i++) fillers.push(Deno.openSync("/dev/null"));
      } catch { /* full */ }
    },
  });
  root = h.root;
  const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
  const realOpenAt = libc.openAt;
  // The pressure ends at the tree's next open (after the listing failed).
  libc.openAt = (dirFd, name, flags) => {
    for (const file of fillers.splice(0)) file.close();
    return realOpenAt(dirFd, name, flags);
  };
  try {
    await Deno.mkdir(`${h.outside}/x/inner`, { recursive: true });
    await Deno.rename(`${h.outside}/x`, `${h.root}/skills/x`);
    h.settle();
  } finally {
    for (const file of fillers.splice(0)) file.close();
    libc.openAt = realOpenAt;
  }
  assert.ok(h.watched().includes(`${h.root}/skills/x`), "opened and watched before the listing");
  assert.ok(!h.watched().includes(`${h.root}/skills/x/inner`), "the listing failed");
  assert.deepEqual(
    h.reports.filter((r) => r.type === "lost").map((r) => r.detail),
    [`skills/x:${LISTING_FAILED_WHY}`],
  );
});

Deno.test({
  name:
    "attack (r18, r18-2): a root that is a bind mount of a folder inside another root (one inode, two real paths) is said lost (SameFolderElsewhere), never walked and deaf",
  // Needs `mount --bind` (root, or a user namespace with CAP_SYS_ADMIN).
  ignore: Deno.build.os !== "linux" || Deno.uid() !== 0,
  async fn() {
    await using h = await treeHarness();
    const other = `${h.outside}/bound`;
    await Deno.mkdir(other);
    await Deno.mkdir(`${h.root}/skills/shared`);
    const mount = await new Deno.Command("mount", {
      args: ["--bind", `${h.root}/skills/shared`, other],
      stderr: "piped",
    }).output();
    if (!mount.success) return; // No mount here: nothing to attack.
    try {
      h.settle();
      h.tree.subscribe(2, other, other);
      h.settle();
      assert.ok(
        h.reports.some((r) => r.type === "walked" && r.path === other),
        "the second root is told it is watched",
      );
      // One inotify instance gives the inode one watch, whose events name the first root's
      // path: the second root is said lost (its subscriber reads it again periodically).
      assert.deepEqual(
        h.reports.filter((r) => r.type === "lost"),
        [{ type: "lost", path: other, detail: `.:${SAME_FOLDER_WHY}` }],
        `the bind-mounted root is silently deaf: ${JSON.stringify(h.reports.slice(-4))}`,
      );
      // The first root still hears the folder (under its own path).
      await Deno.writeTextFile(`${other}/SKILL.md`, "x");
      h.settle();
      assert.ok(h.reports.some((r) => r.path === `${h.root}/skills/shared/SKILL.md`));
      // Walked the other way round (the bind-mounted root first, then the outer root's walk
      // reaches the same inode): the outer root's folder is said lost instead.
      h.tree.unsubscribe(1);
      h.settle();
      h.tree.subscribe(1, h.root, h.root);
      h.settle();
      assert.ok(
        h.reports.some((r) =>
          r.type === "lost" && r.path === h.root && r.detail === `skills/shared:${SAME_FOLDER_WHY}`
        ),
        `the outer root's copy is said lost: ${JSON.stringify(h.reports.slice(-4))}`,
      );
    } finally {
      await new Deno.Command("umount", { args: [other] }).output();
    }
  },
});

Deno.test("attack (r18, hA-1): open errors midway through walks (EMFILE on every third name) leave no descriptor open after the walk, an unsubscribe or an overflow", async () => {
  await using h = await treeHarness();
  for (let i = 0; i < 12; i++) {
    await Deno.mkdir(`${h.root}/skills/s${i}/x/y/z`, { recursive: true });
  }
  h.settle();
  const openFds = () => [...Deno.readDirSync("/proc/self/fd")].length;
  const fdsBefore = openFds();
  const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
  const realOpenAt = libc.openAt;
  let calls = 0;
  libc.openAt = (dirFd, name, flags) =>
    ++calls % 3 === 0 ? -EMFILE : realOpenAt(dirFd, name, flags);
  try {
    h.tree.unsubscribe(1);
    h.tree.subscribe(1, h.root, h.root);
    h.settle();
    assert.equal(openFds(), fdsBefore, "after a walk with errors");
    h.tree.unsubscribe(1);
    h.tree.subscribe(1, h.root, h.root);
    h.tree.step(8);
    h.tree.unsubscribe(1);
    h.settle();
    assert.equal(openFds(), fdsBefore, "after an unsubscribe midway");
    h.tree.subscribe(1, h.root, h.root);
    h.tree.step(8);
    h.tree.handle([{ wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" }]);
    h.settle();
    assert.equal(openFds(), fdsBefore, "after an overflow midway");
  } finally {
    libc.openAt = realOpenAt;
  }
});
