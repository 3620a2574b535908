import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { createTimeSlice, noteClientRequest } from "../../src/skills/_time_slice.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import { addToTree, makeTree, skillMd } from "./_tree.ts";

Deno.test("createTimeSlice() yields once the slice is used up, and waiters share the turn", async () => {
  const slice = createTimeSlice(0);
  let turns = 0;
  setImmediate(() => turns++);
  await Promise.all([slice.pause(), slice.pause(), slice.pause()]);
  assert.equal(slice.yields, 1);
  assert.equal(turns, 1, "the event loop turned before the pause ended");
  const long = createTimeSlice(60_000);
  await long.pause();
  await long.pause();
  assert.equal(long.yields, 0);
  assert.throws(() => createTimeSlice(-1), RangeError);
  assert.throws(() => createTimeSlice(Number.NaN), RangeError);
});

Deno.test("createTimeSlice() with giveWay holds background work until client requests pause", async () => {
  const quietMs = 40;
  const background = createTimeSlice(60_000, { quietMs, maxWaitMs: 60_000 });
  await background.pause();
  assert.equal(background.yields, 0, "no request yet: the slice goes on");
  noteClientRequest();
  const requestedAt = performance.now();
  // A second request while the pause waits pushes the quiet spell back.
  setTimeout(noteClientRequest, 10);
  await background.pause();
  assert.equal(background.yields, 1);
  assert.ok(
    performance.now() - requestedAt >= quietMs + 10 - 1,
    "the pause ended only after a quiet spell following the last request",
  );
  // Urgent work (a search queued behind it) never waits.
  let isUrgent = false;
  const urgent = createTimeSlice(60_000, {
    quietMs: 60_000,
    maxWaitMs: 60_000,
    isUrgent: () => isUrgent,
  });
  noteClientRequest();
  isUrgent = true;
  await urgent.pause();
  assert.equal(urgent.yields, 0);
  assert.throws(() => createTimeSlice(10, { quietMs: 0, maxWaitMs: 1 }), RangeError);
  assert.throws(() => createTimeSlice(10, { quietMs: 1, maxWaitMs: Number.NaN }), RangeError);
});

Deno.test("buildCatalog() and rebuildCatalog() let other work run while they walk many skills", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    const name = `skill-${String(i).padStart(2, "0")}`;
    entries[`${name}/SKILL.md`] = skillMd(name, `Skill ${i}`);
    entries[`${name}/references/guide.md`] = "guide\n";
  }
  await using tree = await makeTree(entries);
  let turns = 0;
  let isBuilding = true;
  const spin = () => {
    turns++;
    if (isBuilding) setImmediate(spin);
  };
  setImmediate(spin);
  const roots = [{ path: tree.path, from: "argument" as const }];
  const catalog = await buildCatalog(roots, DEFAULT_CAPS, { sliceMs: 0 });
  const duringBuild = turns;
  const rebuilt = await rebuildCatalog(catalog, [tree.at("new-folder")], { caps: DEFAULT_CAPS });
  isBuilding = false;
  assert.equal(catalog.skills.length, 60);
  assert.equal(rebuilt.isFullRescan, true);
  // With a 0 ms slice the build yields before every folder and skill: 60 skills, 60+ turns.
  assert.ok(duringBuild >= 60, `the event loop turned ${duringBuild} times during the build`);
});

Deno.test("rebuildCatalog() as background work gives way to requests, and goes on once a change waits behind it", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    const name = `skill-${String(i).padStart(2, "0")}`;
    entries[`${name}/SKILL.md`] = skillMd(name, `Skill ${i}`);
  }
  await using tree = await makeTree(entries);
  const roots = [{ path: tree.path, from: "argument" as const }];
  const catalog = await buildCatalog(roots, DEFAULT_CAPS);
  await addToTree(tree.path, { "skill-new/SKILL.md": skillMd("skill-new", "Added") });
  let asked = 0;
  let isUrgent = false;
  noteClientRequest();
  // Requests flow (the quiet spell never comes in time): only urgency lets it finish.
  setTimeout(() => (isUrgent = true), 30);
  const rebuilt = await rebuildCatalog(catalog, [tree.path], {
    caps: DEFAULT_CAPS,
    giveWay: {
      quietMs: 60_000,
      maxWaitMs: 60_000,
      isUrgent: () => {
        asked++;
        return isUrgent;
      },
    },
  });
  assert.equal(rebuilt.isFullRescan, true);
  assert.ok(rebuilt.catalog.byName.has("skill-new"), "the rescan found the new skill");
  assert.ok(asked > 0, "the rescan's pauses asked whether to go on");
});
