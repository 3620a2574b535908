/**
 * r9 review of s18 (main's behaviour too): in a root split by an unreadable
 * folder, a new skill folder at the root re-plans the whole watch, closing
 * every batch watcher and opening them again. Deno's watcher close is
 * superlinear in the folders watched: as nobody, 10,000 sibling skill
 * folders, the worker's thread was held 60 s (main) and 130 s (s18 76962b5,
 * load 16) in one stretch after one `mkdir` (no request answered meanwhile).
 * A new folder needs a watch of its own, not the others' closed and opened
 * again: the watchers over unchanged folders stay open.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import type { WatchOpener } from "../../src/refresh/watch_plan.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { skillMd } from "../skills/_tree.ts";

/** Sibling skill folders: more than one batch watcher's worth. */
const SIBLINGS = 450;

Deno.test("attack: a skill folder added to a split root of 450 siblings closes no watcher over the unchanged ones", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-replan-cost-" });
  try {
    for (let i = 0; i < SIBLINGS; i++) {
      const name = `s${String(i).padStart(4, "0")}`;
      Deno.mkdirSync(`${root}/${name}`);
      Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name));
    }
    Deno.mkdirSync(`${root}/locked`);
    const locked = `${root}/locked`;
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    let closedWithSiblings = 0;
    let isStarted = false;
    // Real watchers, refused as Deno refuses a recursive watch over an unreadable folder; counts
    // the closes, after the start, of watchers that held an unchanged sibling.
    const open: WatchOpener = (paths, options) => {
      const list = [paths].flat();
      for (const path of list) {
        if (path === locked || (options.recursive && locked.startsWith(`${path}/`))) {
          throw new Deno.errors.PermissionDenied(
            `Permission denied (os error 13) about ${JSON.stringify([locked])}`,
          );
        }
      }
      const watcher = Deno.watchFs(paths, options);
      const holdsSibling = list.some((path) => /\/s\d{4}$/.test(path));
      const close = watcher.close.bind(watcher);
      watcher.close = () => {
        if (isStarted && holdsSibling) closedWithSiblings++;
        close();
      };
      return watcher;
    };
    await using _refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchFs: open,
    });
    isStarted = true;
    Deno.mkdirSync(`${root}/added`);
    Deno.writeTextFileSync(`${root}/added/SKILL.md`, skillMd("added"));
    for (let i = 0; i < 400 && store.current().byName.get("added") === undefined; i++) {
      await new Promise((ok) => setTimeout(ok, 25));
    }
    assert.ok(store.current().byName.get("added") !== undefined, "the new skill was not served");
    // Let a re-plan that follows the swap run.
    await new Promise((ok) => setTimeout(ok, 1_500));
    assert.equal(
      closedWithSiblings,
      0,
      `${closedWithSiblings} watchers over unchanged siblings closed to watch one new folder`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
