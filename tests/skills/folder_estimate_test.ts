import assert from "node:assert/strict";
import { estimateSkillFolders } from "../../src/skills/folder_estimate.ts";
import type { Root } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

const rootAt = (path: string): Root => ({ path, from: "argument" });

Deno.test("estimateSkillFolders() counts a root's sub-folders without opening them", async () => {
  await using tree = await makeTree({
    "a/SKILL.md": skillMd("a"),
    "b/SKILL.md": skillMd("b"),
    "group/c/SKILL.md": skillMd("c"),
    "notes.txt": "not a folder",
  });
  // Group folders count once (their skills are found by the walk): a hint, not the catalog.
  assert.equal(estimateSkillFolders([rootAt(tree.path)]), 3);
});

Deno.test("estimateSkillFolders() counts a root that is a skill as one folder", async () => {
  await using tree = await makeTree({
    "SKILL.md": skillMd("whole"),
    "references/a/x.md": "x",
    "references/b/y.md": "y",
  });
  assert.equal(estimateSkillFolders([rootAt(tree.path)]), 1);
});

Deno.test("estimateSkillFolders() counts a skills/ container's contents instead of the container", async () => {
  await using tree = await makeTree({
    "skills/a/SKILL.md": skillMd("a"),
    "skills/b/SKILL.md": skillMd("b"),
    ".claude/skills/c/SKILL.md": skillMd("c"),
    "d/SKILL.md": skillMd("d"),
  });
  // d, skills/{a,b}, .claude/skills/c; the .claude folder itself counts once too (link count).
  const estimate = estimateSkillFolders([rootAt(tree.path)]);
  assert.ok(estimate >= 4 && estimate <= 5, `estimate ${estimate}`);
});

Deno.test("attack: estimateSkillFolders() does not count through a skills/ container that is a symlink leading outside", async () => {
  await using tree = await makeTree({
    "outside/a/SKILL.md": skillMd("a"),
    "outside/b/SKILL.md": skillMd("b"),
    "outside/c/SKILL.md": skillMd("c"),
    "root/d/SKILL.md": skillMd("d"),
  });
  await Deno.symlink(tree.at("outside"), tree.at("root/skills"));
  assert.equal(estimateSkillFolders([rootAt(tree.at("root"))]), 1);
});

Deno.test("estimateSkillFolders() adds up roots and counts a missing or unavailable root as 0", async () => {
  await using tree = await makeTree({
    "one/a/SKILL.md": skillMd("a"),
    "two/b/SKILL.md": skillMd("b"),
    "two/c/SKILL.md": skillMd("c"),
  });
  assert.equal(
    estimateSkillFolders([
      rootAt(tree.at("one")),
      rootAt(tree.at("two")),
      rootAt(tree.at("missing")),
      { ...rootAt(tree.at("one")), isUnavailable: true },
    ]),
    3,
  );
});
