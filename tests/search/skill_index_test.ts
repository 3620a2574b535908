import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { SkillSearchIndex } from "../../src/search/skill_index.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import { memoryCatalog, memorySkill } from "../support/memory_catalog.ts";
import { createTimeSlice, DEFAULT_SLICE_MS } from "../../src/skills/_time_slice.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

function names(index: SkillSearchIndex, query: string, limit = 10): string[] {
  return index.search(query, limit).hits.map((hit) => hit.skill.name);
}

Deno.test("SkillSearchIndex.search() ranks a name or description match above body-only matches", () => {
  const index = new SkillSearchIndex();
  index.sync(memoryCatalog([
    memorySkill({
      name: "body-heavy",
      description: "Other things.",
      body: "deploy ".repeat(50),
    }),
    memorySkill({ name: "in-description", description: "Deploy a service." }),
    memorySkill({ name: "deploy", description: "Ships code." }),
  ]));
  assert.deepEqual(names(index, "deploy"), ["deploy", "in-description", "body-heavy"]);
});

Deno.test("SkillSearchIndex never returns a skill hidden from the model (disable-model-invocation)", () => {
  const index = new SkillSearchIndex();
  index.sync(memoryCatalog([
    memorySkill({
      name: "hidden-deploy",
      description: "Deploy.",
      frontmatter: { "disable-model-invocation": true },
    }),
    memorySkill({ name: "shown", description: "Deploy too." }),
  ]));
  assert.deepEqual(names(index, "deploy hidden"), ["shown"]);
  assert.equal(index.size, 1, "a hidden skill is not even indexed");
});

Deno.test("SkillSearchIndex.search() returns at most limit hits and counts every match", () => {
  const index = new SkillSearchIndex();
  index.sync(memoryCatalog(
    Array.from(
      { length: 30 },
      (_, i) =>
        memorySkill({ name: `s${String(i).padStart(2, "0")}`, description: "Common word." }),
    ),
  ));
  const answer = index.search("common", 5);
  assert.equal(answer.hits.length, 5);
  assert.equal(answer.total, 30);
  assert.deepEqual(answer.hits.map((hit) => hit.skill.name), ["s00", "s01", "s02", "s03", "s04"]);
});

Deno.test("SkillSearchIndex.sync() after a live refresh re-indexes only the edited skill", async () => {
  await using tree = await makeTree(Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`skill-${i}/SKILL.md`, skillMd(`skill-${i}`)]),
  ));
  const caps = DEFAULT_CAPS;
  const first = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  // Read 10 s after the tree was written: its SKILL.md versions had settled (see the racy test).
  const index = new SkillSearchIndex({ now: () => Date.now() + 10_000 });
  assert.deepEqual(index.sync(first), { indexed: 50, removed: 0, kept: 0 });
  assert.deepEqual(names(index, "zeppelin"), []);

  const edited = tree.at("skill-7/SKILL.md");
  await Deno.writeTextFile(edited, skillMd("skill-7", "Flies a zeppelin"));
  const { catalog: second } = await rebuildCatalog(first, [edited], { caps });
  assert.deepEqual(index.sync(second), { indexed: 1, removed: 1, kept: 0 });
  assert.equal(index.indexedTotal, 51, "one skill indexed again, not 50");
  assert.deepEqual(names(index, "zeppelin"), ["skill-7"]);

  // A change outside the searchable text (a new file) costs no re-indexing.
  await Deno.writeTextFile(tree.at("skill-8/notes.md"), "notes");
  const { catalog: third } = await rebuildCatalog(second, [tree.at("skill-8/notes.md")], {
    caps,
  });
  assert.deepEqual(index.sync(third), { indexed: 0, removed: 0, kept: 1 });

  await Deno.remove(tree.at("skill-7"), { recursive: true });
  const { catalog: fourth } = await rebuildCatalog(third, [tree.at("skill-7")], { caps });
  assert.deepEqual(index.sync(fourth), { indexed: 0, removed: 1, kept: 0 });
  assert.deepEqual(names(index, "zeppelin"), []);
  assert.equal(index.size, 49);
});

Deno.test("SkillSearchIndex.sync() takes out a skill that becomes hidden and forgets its terms", () => {
  const index = new SkillSearchIndex();
  const visible = memorySkill({ name: "only", description: "Unique wombat." });
  index.sync(memoryCatalog([visible]));
  const terms = index.termCount;
  const hidden = memorySkill({
    name: "only",
    description: "Unique wombat.",
    frontmatter: { "disable-model-invocation": true },
  });
  assert.deepEqual(index.sync(memoryCatalog([hidden])), { indexed: 0, removed: 1, kept: 0 });
  assert.deepEqual(names(index, "wombat"), []);
  assert.ok(terms > 0);
  assert.equal(index.termCount, 0, "no posting is left behind");
});

/** Two versions of one skill whose SKILL.md identities match field for field, bodies apart. */
function sameIdentityVersions(ctimeMs: number): [Skill, Skill] {
  const version = (): Skill => {
    // No body in memory (as the catalog keeps none): the index reads it through `readBody`.
    const { body: _body, ...skill } = memorySkill({ name: "palette", description: "Colours." });
    return {
      ...skill,
      files: [{ path: "SKILL.md", size: 12, mtimeMs: ctimeMs - 3, ctimeMs, dev: 7, ino: 42 }],
    };
  };
  return [version(), version()];
}

Deno.test("attack: SkillSearchIndex.sync() re-reads a SKILL.md whose same-size edit kept its whole identity within the change-time second (racy when read)", async () => {
  const changedMs = 1_800_000_000_000;
  const [before, after] = sameIdentityVersions(changedMs);
  const bodies = new Map<Skill, string>([[before, "zeppelin old"], [after, "dirigible new"]]);
  const reads: string[] = [];
  const readBody = (skill: Skill) => {
    reads.push(bodies.get(skill)!);
    return Promise.resolve(bodies.get(skill)!);
  };
  // The first body read 400 ms after the change (one whole-second ctime, one mtime tick).
  const index = new SkillSearchIndex({ now: () => changedMs + 400 });
  const slice = createTimeSlice(DEFAULT_SLICE_MS);
  await index.syncSliced(memoryCatalog([before]), slice, readBody);
  assert.deepEqual(names(index, "zeppelin"), ["palette"]);
  const report = await index.syncSliced(memoryCatalog([after]), slice, readBody);
  assert.deepEqual(report, { indexed: 1, removed: 1, kept: 0 });
  assert.deepEqual(names(index, "dirigible"), ["palette"]);
  assert.deepEqual(names(index, "zeppelin"), [], "the old body's terms are still searched");
  assert.deepEqual(reads, ["zeppelin old", "dirigible new"]);
});

Deno.test("SkillSearchIndex.sync() keeps a skill whose SKILL.md had settled when read and kept its whole identity (no re-read)", async () => {
  const changedMs = 1_800_000_000_000;
  const [before, after] = sameIdentityVersions(changedMs);
  let reads = 0;
  const readBody = () => {
    reads++;
    return Promise.resolve("zeppelin");
  };
  const index = new SkillSearchIndex({ now: () => changedMs + 5_000 });
  const slice = createTimeSlice(DEFAULT_SLICE_MS);
  await index.syncSliced(memoryCatalog([before]), slice, readBody);
  const report = await index.syncSliced(memoryCatalog([after]), slice, readBody);
  assert.deepEqual(report, { indexed: 0, removed: 0, kept: 1 });
  assert.equal(reads, 1);
  assert.deepEqual(names(index, "zeppelin"), ["palette"]);
});
