/**
 * Review r17 (attack on s17's early loads): a build starts a load for every
 * candidate discovery tells (`onCandidate`), before the build drops a folder
 * reached twice (overlapping roots, `claimed`) or refuses a duplicate name.
 * A sequential build loads each skill folder once; with overlapping roots the
 * early loads load each folder twice (the second never taken), which the
 * loader's side effects count: a full rescan's `Rebuild.loaded` (reported as
 * `RefreshReport.loaded`) and the worker's `skillLoads` (its `ready`
 * message) both count loads nobody used, and the work is done twice.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import { makeTree, skillMd } from "./_tree.ts";

const SKILLS = 20;

async function overlappingTree() {
  const files: Record<string, string> = {};
  for (let i = 0; i < SKILLS; i++) {
    const name = `s${String(i).padStart(2, "0")}`;
    files[`group/${name}/SKILL.md`] = skillMd(name, `Skill ${i}`);
  }
  return await makeTree(files);
}

Deno.test("attack: overlapping roots load each skill folder once, as a sequential build did", async () => {
  await using tree = await overlappingTree();
  // The second root lies inside the first: every skill folder is found twice, served once.
  const roots = [
    { path: tree.path, from: "argument" as const },
    { path: tree.at("group"), from: "argument" as const },
  ];
  const loads: string[] = [];
  const catalog = await buildCatalog(roots, DEFAULT_CAPS, {
    load: (candidate, caps) => {
      loads.push(candidate.realDir);
      return loadSkill(candidate, caps);
    },
  });
  assert.equal(catalog.skills.length, SKILLS);
  // Let any load nobody takes run out before counting.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(loads.length, SKILLS, `${loads.length} loads for ${SKILLS} skill folders`);
});

Deno.test("attack: a full rescan over overlapping roots reports each skill folder loaded again once", async () => {
  await using tree = await overlappingTree();
  const roots = [
    { path: tree.path, from: "argument" as const },
    { path: tree.at("group"), from: "argument" as const },
  ];
  const previous = await buildCatalog(roots, DEFAULT_CAPS);
  // Every SKILL.md edited, and a path outside every skill: a full rescan that loads them all.
  for (let i = 0; i < SKILLS; i++) {
    const name = `s${String(i).padStart(2, "0")}`;
    await Deno.writeTextFile(tree.at(`group/${name}/SKILL.md`), skillMd(name, `Edited ${i}!`));
  }
  const rebuilt = await rebuildCatalog(previous, [tree.at("group/new-folder")], {
    caps: DEFAULT_CAPS,
  });
  assert.equal(rebuilt.isFullRescan, true);
  assert.equal(rebuilt.catalog.skills.length, SKILLS);
  assert.equal(rebuilt.loaded, SKILLS, `reported ${rebuilt.loaded} skill folders loaded again`);
});
