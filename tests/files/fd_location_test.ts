/** The path gate's exact check: the opened descriptor must be the checked real path. */

import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { readBounded, readWhole } from "../../src/files/bounded_read.ts";
import {
  type FdLocator,
  installFdLocator,
  isLocatorExpectedToAnswer,
  locateDirectly,
} from "../../src/files/fd_location.ts";
import {
  PathRefusedError,
  resolveSkillFile,
  resolveSkillFileSync,
} from "../../src/files/path_gate.ts";

Deno.test("locateDirectly() names the real file behind an open descriptor", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const file = join(dir, "a.txt");
    await Deno.writeTextFile(file, "x");
    await Deno.symlink(file, join(dir, "link.txt"));
    const fd = openSync(join(dir, "link.txt"), "r");
    try {
      assert.equal(await locateDirectly(fd), file);
    } finally {
      closeSync(fd);
    }
    assert.equal(await locateDirectly(-1), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readBounded() refuses a descriptor the kernel places anywhere but the checked path", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const lying: FdLocator = () => Promise.resolve("/somewhere/else.txt");
  try {
    await Deno.writeTextFile(join(dir, "a.txt"), "inside");
    const file = await resolveSkillFile(dir, "a.txt");
    installFdLocator(lying);
    await assert.rejects(
      () => readBounded(file, { maxBytes: 100 }),
      (error: unknown) => error instanceof PathRefusedError && error.code === "not-a-file",
    );
    installFdLocator(() => Promise.resolve(join(dir, "a.txt")));
    const read = await readBounded(file, { maxBytes: 100 });
    assert.equal(new TextDecoder().decode(read.bytes), "inside");
  } finally {
    installFdLocator(locateDirectly);
    await Deno.remove(dir, { recursive: true });
  }
});

/** A skill folder with `refs/a.txt`, and outside it a hard link to that very file. */
async function skillWithOutsideTwin(): Promise<
  { skill: string; outside: string } & AsyncDisposable
> {
  const skill = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_fdloc_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_fdloc_out_" }));
  await Deno.mkdir(join(skill, "refs"));
  await Deno.writeTextFile(join(skill, "refs", "a.txt"), "inside");
  // Same inode, outside path: only the descriptor's location tells them apart.
  await Deno.link(join(skill, "refs", "a.txt"), join(outside, "a.txt"));
  return {
    skill,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(skill, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

/** Swaps the skill's `refs` folder for a symlink to the outside folder. */
async function swapFolderForLink(skill: string, outside: string): Promise<void> {
  await Deno.rename(join(skill, "refs"), join(skill, "refs-old"));
  await Deno.symlink(outside, join(skill, "refs"));
}

Deno.test("attack: a folder swapped for a symlink to outside after the check is refused by the descriptor's location", async () => {
  await using tree = await skillWithOutsideTwin();
  const file = await resolveSkillFile(tree.skill, "refs/a.txt");
  await swapFolderForLink(tree.skill, tree.outside);
  // The open follows the link to the same inode outside: identity passes, the location does not.
  await assert.rejects(
    () => readBounded(file, { maxBytes: 100 }),
    (error: unknown) => error instanceof PathRefusedError && error.code === "not-a-file",
  );
  assert.equal(isLocatorExpectedToAnswer(), true);
});

Deno.test("attack: where the locator cannot tell, a folder swapped for a symlink is refused by the narrowed open", async () => {
  await using tree = await skillWithOutsideTwin();
  const file = await resolveSkillFile(tree.skill, "refs/a.txt");
  let asked = 0;
  installFdLocator(() => {
    asked++;
    return Promise.resolve(null);
  });
  try {
    // Unswapped, the file is read (the narrowed way once the locator answered null).
    const read = await readBounded(file, { maxBytes: 100 });
    assert.equal(new TextDecoder().decode(read.bytes), "inside");
    assert.equal(isLocatorExpectedToAnswer(), false);
    await swapFolderForLink(tree.skill, tree.outside);
    await assert.rejects(
      () => readBounded(file, { maxBytes: 100 }),
      (error: unknown) => error instanceof PathRefusedError && error.code === "not-a-file",
    );
    // The first read asked twice (direct, then narrowed); the refused one never got that far.
    assert.equal(asked, 2);
  } finally {
    installFdLocator(locateDirectly);
  }
  assert.equal(isLocatorExpectedToAnswer(), true, "a new locator is expected to answer");
});

Deno.test("attack: an ancestor of a skill folder swapped for a symlink after it was checked is refused at the read", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_fdloc_anc_" }));
  try {
    const skill = join(base, "root", "skill");
    await Deno.mkdir(skill, { recursive: true });
    await Deno.writeTextFile(join(skill, "a.txt"), "inside");
    await Deno.mkdir(join(base, "outside", "skill"), { recursive: true });
    // Same inode outside: only the descriptor's location tells them apart.
    await Deno.link(join(skill, "a.txt"), join(base, "outside", "skill", "a.txt"));
    const first = resolveSkillFileSync(skill, "a.txt");
    assert.equal(new TextDecoder().decode(await readWhole(first, 100)), "inside");
    // The skill folder's parent becomes a link to the outside copy of the tree.
    await Deno.rename(join(base, "root"), join(base, "root-old"));
    await Deno.symlink(join(base, "outside"), join(base, "root"));
    await assert.rejects(
      async () => await readWhole(resolveSkillFileSync(skill, "a.txt"), 100),
      (error: unknown) => error instanceof PathRefusedError,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
