/**
 * Finding 6 through live refresh: past the watch budget (the tree's own
 * bound here; ENOSPC from `fs.inotify.max_user_watches` takes the same
 * path), live refresh behaves as with Deno's watcher: one stderr line for
 * the root, no line per folder, the root unwatched whole and read again
 * every retry period (shortened here), so an edit is still served.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { startLiveRefresh } from "../../../src/refresh/live_refresh.ts";
import { directStarter } from "../../../src/refresh/watch_isolate.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { skillMd } from "../../skills/_tree.ts";

Deno.test("attack: past the inotify watch budget, one line for the root, the root read again every retry, edits served", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-inotify-limit-" }));
  const lines: string[] = [];
  const consoleError = console.error;
  try {
    for (let i = 0; i < 60; i++) {
      const name = `s${String(i).padStart(3, "0")}`;
      Deno.mkdirSync(`${root}/${name}/scripts`, { recursive: true });
      Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name, "Before"));
    }
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    console.error = (...args: unknown[]) => void lines.push(args.join(" "));
    await using refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchLimitRetryMs: 200,
      watchIsolate: { starter: directStarter([root], { maxWatches: 20 }) },
    });
    assert.deepEqual(refresh.unwatched, [{ root, folder: ".", why: "WatchLimit" }]);
    Deno.writeTextFileSync(`${root}/s007/SKILL.md`, skillMd("s007", "After"));
    const deadline = Date.now() + 20_000;
    while (store.current().byName.get("s007")?.description !== "After") {
      assert.ok(Date.now() < deadline, "an edit under the limit was never read");
      await new Promise((ok) => setTimeout(ok, 25));
    }
    const watchLines = lines.filter((line) => /live refresh/.test(line));
    assert.equal(watchLines.length, 1, watchLines.join("\n"));
    assert.match(watchLines[0]!, /max_user_watches/);
  } finally {
    console.error = consoleError;
    await Deno.remove(root, { recursive: true });
  }
});
