/**
 * Session 17: a build starts loading each skill as discovery finds it
 * (`src/skills/_early_loads.ts`). Those loads stay within their bounds, a
 * load nobody takes is dropped without an unhandled rejection, and a build's
 * catalog is the one loading after discovery gave: a duplicate name found
 * later still refuses both folders, and the skill cap still holds.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { createEarlyLoads } from "../../src/skills/_early_loads.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";
import { makeTree, skillMd } from "./_tree.ts";

const candidate = (name: string) => ({ name }) as unknown as SkillCandidate;

Deno.test("early loads: at most `limit` in flight and `max` in all; taken after stop, queued ones are dropped", async () => {
  let inFlight = 0;
  let most = 0;
  const started: string[] = [];
  const releases: (() => void)[] = [];
  const early = createEarlyLoads(
    async (c) => {
      started.push(c.name);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => releases.push(resolve));
      inFlight--;
      return c.name.toUpperCase();
    },
    2,
    4,
  );
  const all = ["a", "b", "c", "d", "e"].map(candidate);
  for (const c of all) early.start(c);
  early.start(all[0]!); // started once only
  assert.deepEqual(started, ["a", "b"]);
  releases.shift()!();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(started, ["a", "b", "c"], "a freed slot starts the next queued one");
  early.stop();
  releases.splice(0).forEach((release) => release());
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(
    started,
    ["a", "b", "c"],
    "nothing starts after stop (d was queued, e past max)",
  );
  assert.equal(most, 2);
  assert.equal(await early.take(all[0]!), "A");
  assert.equal(await early.take(all[2]!), "C");
  assert.equal(early.take(all[0]!), null, "taken once");
  assert.equal(early.take(all[3]!), null, "never started: the caller loads it");
  assert.equal(early.take(all[4]!), null);
});

Deno.test("early loads: a load that fails rejects when taken, and is dropped quietly when not", async () => {
  const early = createEarlyLoads((c) => Promise.reject(new Error(`no ${c.name}`)), 4, 10);
  const [a, b] = [candidate("a"), candidate("b")];
  early.start(a);
  early.start(b);
  early.stop();
  await assert.rejects(early.take(a)!, /no a/);
  // b is never taken: the sanitizers fail the test on an unhandled rejection.
  await new Promise((resolve) => setTimeout(resolve, 10));
});

Deno.test("early loads: a duplicate name found after the first folder was loaded still refuses both, and the cap still holds", async () => {
  await using tree = await makeTree({
    "one/alpha/SKILL.md": skillMd("alpha", "First alpha"),
    "one/beta/SKILL.md": skillMd("beta", "Beta"),
    "one/gamma/SKILL.md": skillMd("gamma", "Gamma"),
    "two/alpha/SKILL.md": skillMd("alpha", "Second alpha"),
  });
  const roots = [{ path: tree.at("one"), from: "argument" as const }, {
    path: tree.at("two"),
    from: "argument" as const,
  }];
  const loaded: string[] = [];
  const catalog = await buildCatalog(roots, DEFAULT_CAPS, {
    load: (c, caps) => {
      loaded.push(c.dir);
      return loadSkill(c, caps);
    },
  });
  assert.deepEqual([...catalog.byName.keys()].sort(), ["beta", "gamma"]);
  assert.equal(
    catalog.problems.filter((p) => p.reason === "duplicate-name").length,
    2,
    JSON.stringify(catalog.problems),
  );
  assert.ok(loaded.includes(tree.at("one/alpha")), "loaded early, before the duplicate was seen");

  const capped = await buildCatalog(roots, { ...DEFAULT_CAPS, maxSkills: 1 }, {
    load: (c, caps) => loadSkill(c, caps),
  });
  assert.equal(capped.byName.size, 1);
  assert.ok(
    capped.problems.some((p) => p.reason === "skill-limit"),
    JSON.stringify(capped.problems),
  );
});

Deno.test("early loads: background work (a build that gives way) starts none during discovery", async () => {
  await using tree = await makeTree({
    "root/alpha/SKILL.md": skillMd("alpha", "Alpha"),
    "root/beta/SKILL.md": skillMd("beta", "Beta"),
  });
  const events: string[] = [];
  const roots = [{ path: tree.at("root"), from: "argument" as const }];
  const build = (giveWay?: { readonly quietMs: number; readonly maxWaitMs: number }) =>
    buildCatalog(roots, DEFAULT_CAPS, {
      ...(giveWay === undefined ? {} : { giveWay }),
      onDiscovered: () => events.push("discovered"),
      load: (c, caps) => {
        events.push(`load ${c.baseName}`);
        return loadSkill(c, caps);
      },
    });
  await build();
  assert.deepEqual(
    events,
    ["load alpha", "load beta", "discovered"],
    "foreground: loads start early",
  );
  events.length = 0;
  const background = await build({ quietMs: 20, maxWaitMs: 100 });
  assert.deepEqual(events, ["discovered", "load alpha", "load beta"]);
  assert.equal(background.skills.length, 2);
});
