/**
 * Issue 13 (s10): the loader no longer `realpath`s a skill folder discovery
 * found (discovery saw it real; `rememberRealFolder` in
 * `src/files/path_gate.ts`). A skill folder, or the folder above it, swapped
 * for a symlink between discovery and loading must still never serve the
 * link target's bytes: the gate's `lstat` of the skill folder refuses the
 * first, the descriptor-location check after the open the second, and where
 * no locator answers, the narrowed open's real-path check and then
 * `realpath` do.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { discoverRoot, type SkillCandidate } from "../../src/skills/discover.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

const SECRET_FILES = {
  "s/SKILL.md": skillMd("s", "SECRET-DESCRIPTION", "SECRET-BODY\n"),
  "s/references/guide.md": "SECRET-GUIDE\n",
};

/**
 * `base/root/s/SKILL.md` (inside) and `base/outside/s/SKILL.md`, a valid
 * skill named `s` holding a secret, where `root` or `root/s` will point.
 */
async function rootAndOutside(): Promise<Tree & { readonly root: string }> {
  const base = await makeTree({
    "root/s/SKILL.md": skillMd("s", "Inside description"),
    "root/s/references/guide.md": "inside guide\n",
    ...Object.fromEntries(
      Object.entries(SECRET_FILES).map(([at, text]) => [`outside/${at}`, text]),
    ),
  });
  return Object.assign(base, { root: base.at("root") });
}

/** The one candidate discovery finds under `base/root`. */
async function discoveredCandidate(tree: { readonly root: string }): Promise<SkillCandidate> {
  const found = await discoverRoot({ path: tree.root, from: "argument" });
  const candidates = found.items.flatMap((item) =>
    item.kind === "candidate" ? [item.candidate] : []
  );
  assert.equal(candidates.length, 1);
  return candidates[0]!;
}

/** Replaces `base/<relative>` with a symlink to `base/outside[/s]` (same depth). */
async function swapForLink(tree: Tree, relative: "root" | "root/s"): Promise<void> {
  await Deno.rename(tree.at(relative), tree.at(`${relative}-old`));
  await Deno.symlink(tree.at(relative === "root" ? "outside" : "outside/s"), tree.at(relative));
}

function assertNoSecret(value: unknown, tree: Tree): void {
  const text = JSON.stringify(value);
  assert.ok(!text.includes("SECRET"), "outside bytes were served");
  assert.ok(!text.includes(tree.at("outside")), "an outside host path is named");
}

Deno.test("attack: a skill folder swapped for a symlink between discovery and loading is refused, its text never served", async () => {
  await using tree = await rootAndOutside();
  const candidate = await discoveredCandidate(tree);
  await swapForLink(tree, "root/s");
  const loaded = await loadSkill(candidate, DEFAULT_CAPS);
  assert.equal(loaded.skill, null);
  assert.deepEqual(loaded.problems.map((p) => [p.path, p.reason]), [
    [tree.at("root/s/SKILL.md"), "unreadable-skill-md"],
  ]);
  assertNoSecret(loaded, tree);
});

Deno.test("attack: the folder above a skill swapped for a symlink between discovery and loading is refused by the descriptor's location", async () => {
  await using tree = await rootAndOutside();
  const candidate = await discoveredCandidate(tree);
  await swapForLink(tree, "root");
  const located: (string | null)[] = [];
  installFdLocator(async (fd) => {
    const path = await locateDirectly(fd);
    located.push(path);
    return path;
  });
  try {
    const loaded = await loadSkill(candidate, DEFAULT_CAPS);
    assert.equal(loaded.skill, null);
    assert.deepEqual(loaded.problems.map((p) => [p.path, p.reason]), [
      [tree.at("root/s/SKILL.md"), "unreadable-skill-md"],
    ]);
    assert.match(loaded.problems[0]?.detail ?? "", /changed while it was read/);
    // The open reached the outside copy, and the kernel said so: that is what refused it.
    assert.deepEqual(located, [await Deno.realPath(tree.at("outside/s/SKILL.md"))]);
    assertNoSecret(loaded, tree);
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a skill folder's parent swapped for a symlink after a first load is refused on the next load", async () => {
  await using tree = await rootAndOutside();
  const candidate = await discoveredCandidate(tree);
  const first = await loadSkill(candidate, DEFAULT_CAPS);
  assert.equal(first.skill?.description, "Inside description");
  await swapForLink(tree, "root");
  const again = await loadSkill(candidate, DEFAULT_CAPS);
  assert.equal(again.skill, null);
  assertNoSecret(again, tree);
});

Deno.test("attack: where the locator answers null, a skill folder's parent swapped for a symlink after discovery is refused", async () => {
  await using tree = await rootAndOutside();
  const candidate = await discoveredCandidate(tree);
  await swapForLink(tree, "root");
  installFdLocator(() => Promise.resolve(null));
  try {
    // First null answer: given to the build's located open (s16), which reads nothing then; the
    // full way after it takes `realpath`, which leads outside the skill (before s16 the narrowed
    // open confirmed the real path after opening and refused as unreadable). Refused either way.
    const first = await loadSkill(candidate, DEFAULT_CAPS);
    assert.equal(first.skill, null);
    assert.equal(first.problems[0]?.reason, "symlink-escape");
    // From then on every resolve takes `realpath`, which leads outside the skill.
    const again = await loadSkill(candidate, DEFAULT_CAPS);
    assert.equal(again.skill, null);
    assert.equal(again.problems[0]?.reason, "symlink-escape");
    assertNoSecret([first, again], tree);
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("loadSkill() loads a discovered skill folder and lists its files", async () => {
  await using tree = await rootAndOutside();
  const candidate = await discoveredCandidate(tree);
  const loaded = await loadSkill(candidate, DEFAULT_CAPS);
  assert.equal(loaded.skill?.description, "Inside description");
  assert.deepEqual(loaded.skill?.files.map((file) => file.path), [
    "SKILL.md",
    "references/guide.md",
  ]);
});
