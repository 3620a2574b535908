// Review r1 (issue 13): below a skill folder remembered as real, the sync gate resolves with one
// lstat per segment and relies on the descriptor-location check after the open. Where the kernel
// cannot name the descriptor (the locator answers null), the narrowed walk starts at the skill
// folder, so an ancestor swapped for a symlink was caught by nothing.

import assert from "node:assert/strict";
import { join } from "node:path";
import { readBounded, readWhole } from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError, resolveSkillFileSync } from "../../src/files/path_gate.ts";
import { readSkillMd } from "../../src/skills/_read_skill_md.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";

const refused = (error: unknown) => error instanceof PathRefusedError;

/**
 * `base/root/skill/SKILL.md` ("inside") and `outside/skill/SKILL.md` ("SECRET", another inode),
 * where `outside` is the folder the swapped `root` will point at.
 */
async function treeWithOutsideCopy(
  outsideParent?: string,
): Promise<{ base: string; skill: string; outside: string } & AsyncDisposable> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r1_anc_" }));
  const skill = join(base, "root", "skill");
  await Deno.mkdir(skill, { recursive: true });
  await Deno.writeTextFile(join(skill, "SKILL.md"), "inside");
  const outside = outsideParent ?? join(base, "outside");
  await Deno.mkdir(join(outside, "skill"), { recursive: true });
  await Deno.writeTextFile(join(outside, "skill", "SKILL.md"), "SECRET");
  return {
    base,
    skill,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** The skill folder's parent becomes a link to `target`. */
async function swapAncestor(base: string, target: string): Promise<void> {
  await Deno.rename(join(base, "root"), join(base, "root-old"));
  await Deno.symlink(target, join(base, "root"));
}

Deno.test("attack: an ancestor swapped for a symlink after the skill folder was remembered as real is refused where the locator answers null", async () => {
  await using tree = await treeWithOutsideCopy();
  installFdLocator(() => Promise.resolve(null));
  try {
    // Remembered as real while the locator is still expected to answer.
    resolveSkillFileSync(tree.skill, "SKILL.md");
    await swapAncestor(tree.base, tree.outside);
    // Refused at the resolve (realpath) or at the read; never read.
    await assert.rejects(
      async () => await readWhole(resolveSkillFileSync(tree.skill, "SKILL.md"), 100),
      refused,
    );
    await assert.rejects(
      async () =>
        await readBounded(resolveSkillFileSync(tree.skill, "SKILL.md"), { maxBytes: 100 }),
      refused,
    );
  } finally {
    installFdLocator(locateDirectly);
  }
});

/**
 * Makes `parent/<12 levels>/<12 levels>` whose real path is over 4,096 bytes (PATH_MAX), through
 * a link so that no path string passed to a system call is that long; returns a short link to it.
 * `/proc/self/fd/N` of a file in it cannot be read (ENAMETOOLONG): the locator answers null.
 */
async function deepFolder(parent: string): Promise<string> {
  const levels = Array.from({ length: 12 }, () => "d".repeat(200)).join("/");
  await Deno.mkdir(join(parent, "a", levels), { recursive: true });
  await Deno.symlink(join(parent, "a", levels), join(parent, "l1"));
  await Deno.mkdir(join(parent, "l1", levels), { recursive: true });
  await Deno.symlink(join(parent, "l1", levels), join(parent, "deep"));
  return join(parent, "deep");
}

Deno.test("attack: an ancestor swapped for a symlink to an outside tree whose real path the kernel cannot name never serves SKILL.md's outside bytes", async () => {
  await using tree = await treeWithOutsideCopy();
  const deep = await deepFolder(join(tree.base, "far"));
  await Deno.mkdir(join(deep, "skill"));
  await Deno.writeTextFile(join(deep, "skill", "SKILL.md"), "SECRET");
  const candidate = {
    dir: tree.skill,
    realDir: tree.skill,
    skillMdFile: "SKILL.md",
  } as SkillCandidate;
  // The real locator (the trusted part's own code); the first read remembers the folder as real.
  const first = await readSkillMd(candidate, 100);
  assert.ok(first.ok && first.text === "inside");
  await swapAncestor(tree.base, deep);
  const second = await readSkillMd(candidate, 100);
  assert.ok(!second.ok || second.text !== "SECRET", "outside bytes were read as the skill's");
  assert.equal(second.ok, false);
  installFdLocator(locateDirectly);
});
