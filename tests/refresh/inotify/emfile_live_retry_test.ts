/**
 * review r18, r18-1 through live refresh: a skill folder made while the
 * process is at its descriptor limit (`ulimit -n`: EMFILE for the tree's
 * open) is said lost once on stderr and, the pressure over, watched again
 * by the periodic retry (as a root past the watch budget is), so an edit in
 * it is served. Before, the folder stayed silently unwatched for good.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { startLiveRefresh } from "../../../src/refresh/live_refresh.ts";
import { directStarter } from "../../../src/refresh/watch_isolate.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { skillMd } from "../../skills/_tree.ts";

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

Deno.test("attack (r18, r18-1): a skill folder made at the descriptor limit is said lost once, then watched again by the retry: its edit is served", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r18-emfile-" }));
  const root = `${base}/root`;
  const lines: string[] = [];
  const consoleError = console.error;
  const fillers: Deno.FsFile[] = [];
  const release = () => {
    for (const file of fillers.splice(0)) file.close();
  };
  try {
    Deno.mkdirSync(`${root}/one`, { recursive: true });
    Deno.writeTextFileSync(`${root}/one/SKILL.md`, skillMd("one"));
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    console.error = (...args: unknown[]) => void lines.push(args.join(" "));
    await using refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchLimitRetryMs: 200,
      watchIsolate: { starter: directStarter([root]) },
    });
    assert.deepEqual(refresh.unwatched, []);
    // The process at its descriptor limit while the new folder's event is handled.
    Deno.mkdirSync(`${base}/staging/two`, { recursive: true });
    try {
      for (let i = 0; i < 1_000_000; i++) fillers.push(Deno.openSync("/dev/null"));
    } catch { /* full */ }
    try {
      Deno.renameSync(`${base}/staging/two`, `${root}/two`);
      await until("the folder said lost", () => refresh.unwatched.length > 0);
    } finally {
      release();
    }
    assert.deepEqual(refresh.unwatched, [{ root, folder: "two", why: "EMFILE" }]);
    // The pressure is over: an edit made in the folder is served (the retry watched it again).
    Deno.writeTextFileSync(`${root}/two/SKILL.md`, skillMd("two", "Before"));
    await until("two served", () => store.current().byName.get("two")?.description === "Before");
    await until("two watched again", () => refresh.unwatched.length === 0);
    Deno.writeTextFileSync(`${root}/two/SKILL.md`, skillMd("two", "After"));
    await until(
      "the edit served",
      () => store.current().byName.get("two")?.description === "After",
    );
    const watchLines = lines.filter((line) => /live refresh/.test(line));
    assert.equal(watchLines.length, 1, watchLines.join("\n"));
    assert.match(watchLines[0]!, /"two".*EMFILE.*ulimit -n/);
  } finally {
    release();
    console.error = consoleError;
    await Deno.remove(base, { recursive: true });
  }
});
