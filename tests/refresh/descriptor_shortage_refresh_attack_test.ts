/**
 * Attack (hG, session 11): under `ulimit -n`, a live refresh that ran while
 * other reads held every descriptor found skills "unreadable" and swapped in
 * a catalog without them (591 of 1,100 served after a catch-up during a full
 * `skills/list`). A rebuild during which a read gave up for want of a
 * descriptor is not swapped in: the catalog stays, and the same paths are
 * read again a moment later.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import {
  descriptorShortagesGivenUp,
  retryingOnDescriptorShortage,
} from "../../src/files/descriptor_shortage.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog, type SkillLoader } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

/** An error shaped as Deno's for EMFILE. */
function tooManyOpenFiles(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { code: "EMFILE" });
}

Deno.test("descriptorShortagesGivenUp() counts a read given up for want of a descriptor, not other failures", async () => {
  const before = descriptorShortagesGivenUp();
  await assert.rejects(
    retryingOnDescriptorShortage(() => Promise.reject(tooManyOpenFiles()), 2, 0),
    /Too many open files/,
  );
  assert.equal(descriptorShortagesGivenUp(), before + 1);
  await assert.rejects(
    retryingOnDescriptorShortage(() => Promise.reject(new Error("other")), 2, 0),
    /other/,
  );
  let calls = 0;
  await retryingOnDescriptorShortage(
    () => {
      calls++;
      return calls < 2 ? Promise.reject(tooManyOpenFiles()) : Promise.resolve(1);
    },
    3,
    0,
  );
  assert.equal(descriptorShortagesGivenUp(), before + 1, "a shortage waited out is not counted");
});

Deno.test("attack: a live refresh that met a descriptor shortage keeps every skill served, then reads the change again", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "Before"),
    "beta/SKILL.md": skillMd("beta"),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  const store = createCatalogStore(catalog);
  let isShort = true;
  let shortLoads = 0;
  // While "short", every SKILL.md read gives up for want of a descriptor, as the real gated read
  // does after its tries, and the skill comes back unreadable.
  const load: SkillLoader = async (candidate, caps) => {
    if (isShort) {
      shortLoads++;
      try {
        await retryingOnDescriptorShortage(() => Promise.reject(tooManyOpenFiles()), 1, 0);
      } catch {
        return {
          skill: null,
          problems: [{
            path: `${candidate.dir}/SKILL.md`,
            reason: "unreadable-skill-md",
            severity: "error",
            detail: "SKILL.md cannot be read (EMFILE)",
          }],
        };
      }
    }
    return await loadSkill(candidate, caps);
  };
  const reports: boolean[] = [];
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    load,
    onRefresh: (report) => reports.push(report.isSwapped),
  });
  await Deno.writeTextFile(tree.at("alpha/SKILL.md"), skillMd("alpha", "After"));
  await refresh.refresh([tree.at("alpha/SKILL.md"), tree.at("beta")]);
  assert.ok(shortLoads > 0, "the refresh read skills while descriptors were short");
  assert.deepEqual(
    store.current().skills.map((skill) => skill.name),
    ["alpha", "beta"],
    "no skill dropped for want of a descriptor",
  );
  assert.equal(store.current().byName.get("alpha")?.description, "Before");
  isShort = false;
  const deadline = Date.now() + 20_000;
  while (store.current().byName.get("alpha")?.description !== "After") {
    assert.ok(Date.now() < deadline, "the change is read again once descriptors are free");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(store.current().skills.map((skill) => skill.name), ["alpha", "beta"]);
});
