import assert from "node:assert/strict";
import { searchCatalog, warmSearchIndex } from "../../src/search/search_skills.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { noteClientRequest } from "../../src/skills/_time_slice.ts";
import { memoryCatalog, memorySkill } from "../support/memory_catalog.ts";

function manySkills(count: number) {
  return Array.from({ length: count }, (_, i) =>
    memorySkill({
      name: `skill-${String(i).padStart(5, "0")}`,
      description: `Handles task number ${i} with care.`,
      body: "Steps and notes. ".repeat(40),
    }));
}

Deno.test("searchCatalog() waits for the background build and answers from the whole index", async () => {
  const skills = manySkills(3_000);
  skills.push(memorySkill({ name: "zeppelin-pilot", description: "Flies a zeppelin." }));
  const store = createCatalogStore(memoryCatalog(skills));
  const warming = warmSearchIndex(store);
  const found = await searchCatalog(store, store.current(), "zeppelin", 10);
  assert.deepEqual(found.found.map((hit) => hit.skill.name), ["zeppelin-pilot"]);
  assert.equal(await warming, 3_001);
  const all = await searchCatalog(store, store.current(), "task", 5);
  assert.equal(all.total, 3_000);
  assert.equal(all.found.length, 5);
});

Deno.test("searchCatalog() answers each request from the snapshot it read, even when queued", async () => {
  const before = memoryCatalog([
    memorySkill({ name: "a-skill", description: "Plain." }),
    memorySkill({ name: "b-skill", description: "Plain too." }),
  ]);
  const store = createCatalogStore(before);
  const after = memoryCatalog([
    memorySkill({ name: "a-skill", description: "Now about a zeppelin." }),
    before.byName.get("b-skill")!,
  ]);
  const [old, current] = await Promise.all([
    searchCatalog(store, before, "zeppelin", 10),
    searchCatalog(store, after, "zeppelin", 10),
  ]);
  assert.equal(old.total, 0);
  assert.deepEqual(current.found.map((hit) => hit.skill.name), ["a-skill"]);
  assert.match(current.found[0]!.snippet, /«zeppelin»/);
});

Deno.test("warmSearchIndex() gives way to requests, but not to a search queued behind it", async () => {
  const skills = manySkills(2_000);
  skills.push(memorySkill({ name: "zeppelin-pilot", description: "Flies a zeppelin." }));
  const store = createCatalogStore(memoryCatalog(skills));
  // Requests keep arriving: a background build that gave way to them would wait 60 s a pause.
  noteClientRequest();
  const warming = warmSearchIndex(store, undefined, { quietMs: 60_000, maxWaitMs: 60_000 });
  noteClientRequest();
  const found = await searchCatalog(store, store.current(), "zeppelin", 10);
  assert.deepEqual(found.found.map((hit) => hit.skill.name), ["zeppelin-pilot"]);
  assert.equal(await warming, 2_001);
});
