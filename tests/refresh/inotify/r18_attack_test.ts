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

Deno.test("attack (r18, hA-1): openat answering EMFILE (the process at its descriptor limit) for a new folder leaves it neither watched nor said lost", async () => {
  await using h = await treeHarness();
  const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
  const realOpenAt = libc.openAt;
  libc.openAt = (dirFd, name, flags) => name === "c" ? -EMFILE : realOpenAt(dirFd, name, flags);
  await Deno.mkdir(`${h.root}/skills/c`);
  h.settle();
  // The pressure is over; nothing is retried by itself.
  libc.openAt = realOpenAt;
  await Deno.mkdir(`${h.root}/skills/c/new-skill`);
  await Deno.writeTextFile(`${h.root}/skills/c/new-skill/SKILL.md`, "x");
  h.settle();
  const isWatched = h.watched().includes(`${h.root}/skills/c`);
  const isSaidLost = h.reports.some((r) => r.type === "lost" && r.detail.startsWith("skills/c:"));
  const heardNewSkill = h.reports.some((r) => r.path === `${h.root}/skills/c/new-skill/SKILL.md`);
  assert.ok(
    isWatched || isSaidLost || heardNewSkill,
    `skills/c silently unwatched: reports ${JSON.stringify(h.reports.slice(-6))}`,
  );
});

Deno.test({
  name:
    "attack (r18, hA-3): a root that is a bind mount of a folder inside another root (one inode, two real paths) hears nothing: it is told walked, never lost",
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
      await Deno.writeTextFile(`${other}/SKILL.md`, "x");
      h.settle();
      const heard = h.reports.filter((r) => r.path.startsWith(`${other}/`) || r.path === other);
      const lost = h.reports.filter((r) => r.type === "lost");
      assert.ok(
        heard.some((r) => r.type === "change") || lost.length > 0,
        `the bind-mounted root is silently deaf: ${JSON.stringify(h.reports.slice(-4))}`,
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
