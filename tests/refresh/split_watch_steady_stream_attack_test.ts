/**
 * r9 review of s18's 48f1274: a split root is rescanned once its watcher has
 * been quiet for a while after an event (a lost event's edit is then
 * served). Under a steady stream of events (a skill's log or an editor's
 * swap file written more often than that quiet time) the rescan must still
 * come: a lost edit may wait a bounded time, never for as long as something
 * else keeps changing.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import type { WatchOpener } from "../../src/refresh/watch_plan.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

/** Writes to the busy skill's file, one every STREAM_GAP_MS, at most (bounds the test). */
const STREAM_WRITES = 60;
const STREAM_GAP_MS = 300;

/**
 * Real Deno watchers, refused as Deno refuses a recursive watch over
 * `locked`, whose events for `dropped` never come (as when the kernel queue
 * overflowed while they happened).
 */
function droppingOpener(locked: string, dropped: string): WatchOpener {
  return (paths, options) => {
    for (const path of [paths].flat()) {
      if (locked === path || (options.recursive && locked.startsWith(`${path}/`))) {
        throw new Deno.errors.PermissionDenied(
          `Permission denied (os error 13) about ["${locked}"]`,
        );
      }
    }
    const watcher = Deno.watchFs(paths, options);
    async function* events(): AsyncGenerator<Deno.FsEvent> {
      for await (const event of watcher) {
        const paths = event.paths.filter((path) => path !== dropped);
        if (paths.length > 0) yield { ...event, paths };
      }
    }
    return {
      close: () => watcher.close(),
      [Symbol.dispose]: () => watcher.close(),
      [Symbol.asyncIterator]: events,
    } as unknown as Deno.FsWatcher;
  };
}

Deno.test("attack: a split root's lost edit is served while another skill's file keeps changing (events never a second apart)", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "busy/SKILL.md": skillMd("busy"),
    "busy/log.txt": "0\n",
    "unseen/SKILL.md": skillMd("unseen", "Before"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: droppingOpener(tree.at("locked"), tree.at("unseen/SKILL.md")),
  });
  assert.deepEqual(refresh.unwatched.map((lost) => lost.folder), ["locked"]);
  await Deno.writeTextFile(tree.at("unseen/SKILL.md"), skillMd("unseen", "After"));
  let writes = 0;
  while (store.current().byName.get("unseen")?.description !== "After" && writes < STREAM_WRITES) {
    writes++;
    await Deno.writeTextFile(tree.at("busy/log.txt"), `${writes}\n`);
    await new Promise((ok) => setTimeout(ok, STREAM_GAP_MS));
  }
  assert.equal(
    store.current().byName.get("unseen")?.description,
    "After",
    `the lost edit was not served during ${writes} writes ${STREAM_GAP_MS} ms apart elsewhere`,
  );
});
