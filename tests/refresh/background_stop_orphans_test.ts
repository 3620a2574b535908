/**
 * Review r16 (attack on s16's stop of the catch-up rescan for an edit): the
 * rescan's loads run in a pool (`mapPool`); when one of its workers' pauses
 * rejected with `BackgroundWorkStopped`, the pool's other workers kept taking
 * skills, and once the edit was taken off the pending set (so `shouldStop`
 * said no again) they loaded the rest of the stopped rescan in the
 * background, its result thrown away: the very work the stop was meant to
 * spare ran beside the edit's refresh and the rescan run again.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { type RefreshReport, startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { mapPool } from "../../src/skills/_pool.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import type { SkillLoader } from "../../src/skills/catalog.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const SKILLS = 300;
const LOAD_MS = 40;
const GIVE_WAY = { quietMs: 50, maxWaitMs: 250 };

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("attack: mapPool takes no further item once one of its calls failed", async () => {
  const started: number[] = [];
  const items = Array.from({ length: 100 }, (_, i) => i);
  await assert.rejects(
    () =>
      mapPool(items, 4, async (item) => {
        started.push(item);
        await new Promise((resolve) => setTimeout(resolve, item === 0 ? 1 : 20));
        if (item === 0) throw new Error("stopped");
        return item;
      }),
    /stopped/,
  );
  // The calls in flight when item 0 failed end (nothing cancels them); none starts after.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(started, [0, 1, 2, 3], `items started: ${started.length}`);
});

Deno.test({
  name:
    "attack: a catch-up rescan stopped for an edit does not go on loading its skills in the background",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const entries: Record<string, string> = {};
    for (let i = 0; i < SKILLS; i++) {
      const name = `skill-${String(i).padStart(3, "0")}`;
      entries[`${name}/SKILL.md`] = skillMd(name, `Skill ${i}`);
    }
    await using tree = await makeTree(entries);
    const roots = [{ path: tree.path, from: "argument" as const }];
    const store = createCatalogStore(await buildCatalog(roots, DEFAULT_CAPS));
    for (let i = 0; i < SKILLS; i++) {
      const name = `skill-${String(i).padStart(3, "0")}`;
      await Deno.writeTextFile(tree.at(`${name}/SKILL.md`), skillMd(name, `Before watch ${i}`));
    }
    const counter = { loads: 0 };
    const load: SkillLoader = async (candidate, caps) => {
      counter.loads++;
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      return await loadSkill(candidate, caps);
    };
    const reports: RefreshReport[] = [];
    await using refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 20,
      load,
      onRefresh: (report) => reports.push(report),
    });
    const catchUp = refresh.refresh([tree.path], { giveWay: GIVE_WAY });
    await until("the rescan under way", () => counter.loads > 70);
    const loadsAtEdit = counter.loads;
    await Deno.writeTextFile(
      tree.at("skill-000/SKILL.md"),
      skillMd("skill-000", "Edited meanwhile"),
    );
    await catchUp;
    await until("the rescan's own swap", () => reports.some((report) => report.isFullRescan));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(store.current().byName.get("skill-000")?.description, "Edited meanwhile");
    // Before the stop, the edit's own load, the rescan run again whole, and the loads in flight
    // when it stopped (the pool's width at most; a background rescan starts no loads during its
    // discovery, s17): nothing more.
    const bound = loadsAtEdit + 1 + SKILLS + 64;
    assert.ok(counter.loads <= bound, `${counter.loads} loads (at most ${bound})`);
  },
});
