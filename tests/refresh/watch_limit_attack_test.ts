/**
 * r9 review (s18's live refresh; the behaviour is main's too): when the
 * user's inotify watch limit is reached (`fs.inotify.max_user_watches`,
 * shared by every process of the user: an IDE, other servers), Deno's watcher
 * fails with `Error: OS file watch limit reached. about ["<folder>"]`. That is
 * no property of the folder it names: splitting the watch along it (as for an
 * unreadable folder) only meets the limit again at the next folder. Measured
 * as nobody in a user namespace with the limit at 500 (2,000 skill folders):
 * the worker's thread held 19-30 s in one stretch, 2,003 stderr lines (one per
 * folder, advising to make it readable), and the edit never served; at 300
 * folders and a limit of 20, 2 s and 283 lines. A small catalog's
 * `initialize` waits for the watch. Here an opener gives the kernel's answer
 * from a budget of watches.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import type { WatchOpener } from "../../src/refresh/watch_plan.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { skillMd } from "../skills/_tree.ts";

/** Skill folders in the root: more than the watch budget. */
const SKILLS = 300;
/** Kernel watches (one per folder) left for this user. */
const WATCH_BUDGET = 40;

/** Folders at and under `path` (a recursive watch takes one kernel watch each). */
function foldersUnder(path: string): string[] {
  const found = [path];
  for (const entry of Deno.readDirSync(path)) {
    if (entry.isDirectory && !entry.isSymlink) found.push(...foldersUnder(`${path}/${entry.name}`));
  }
  return found;
}

/**
 * Watchers that hold one kernel watch per folder from a budget, as inotify
 * does: past it the open fails as Deno 2.9.6 fails, naming the folder, and
 * gives back what it took. No real watcher is opened.
 */
function limitedOpener(budget: number, counts: { opens: number }): WatchOpener {
  let held = 0;
  return (paths, options) => {
    counts.opens++;
    const folders = [paths].flat().flatMap((path) =>
      options.recursive ? foldersUnder(path) : [path]
    );
    if (held + folders.length > budget) {
      const at = folders[Math.max(0, budget - held)] ?? folders[0];
      throw new Error(`OS file watch limit reached. about ${JSON.stringify([at])}`);
    }
    held += folders.length;
    let isOpen = true;
    const close = () => {
      if (isOpen) held -= folders.length;
      isOpen = false;
    };
    return {
      close,
      [Symbol.dispose]: close,
      async *[Symbol.asyncIterator]() {},
    } as unknown as Deno.FsWatcher;
  };
}

Deno.test("attack: with the inotify watch limit reached, live refresh says so once and does not plan around every folder", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-watch-limit-" });
  const lines: string[] = [];
  const consoleError = console.error;
  try {
    for (let i = 0; i < SKILLS; i++) {
      const name = `s${String(i).padStart(4, "0")}`;
      Deno.mkdirSync(`${root}/${name}`);
      Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name));
    }
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    const counts = { opens: 0 };
    console.error = (...args: unknown[]) => void lines.push(args.join(" "));
    try {
      await using _refresh = await startLiveRefresh(store, {
        caps: DEFAULT_CAPS,
        isToolDescriptionMode: false,
        quietMs: 50,
        watchFs: limitedOpener(WATCH_BUDGET, counts),
      });
    } finally {
      console.error = consoleError;
    }
    const watchLines = lines.filter((line) => /live refresh/.test(line));
    assert.ok(
      watchLines.length <= 2,
      `${watchLines.length} stderr lines about the watch, e.g. ${watchLines[0]}`,
    );
    assert.match(watchLines.join("\n"), /limit|max_user_watches/);
    assert.doesNotMatch(watchLines.join("\n"), /Make the folder readable/);
    // Giving up on a limit takes a few opens, not a plan around each folder.
    assert.ok(counts.opens <= 8, `${counts.opens} watcher opens against a reached limit`);
  } finally {
    console.error = consoleError;
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("startLiveRefresh() with the watch limit reached reads the root again later and watches it once the limit allows", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-watch-limit-retry-" });
  try {
    for (const name of ["a", "b"]) {
      Deno.mkdirSync(`${root}/${name}`);
      Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name, "Before"));
    }
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    let isLimited = true;
    const limited = limitedOpener(0, { opens: 0 });
    await using refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchLimitRetryMs: 200,
      watchFs: (paths, options) =>
        isLimited ? limited(paths, options) : Deno.watchFs(paths, options),
    });
    assert.deepEqual(refresh.unwatched, [{ root, folder: ".", why: "WatchLimit" }]);
    // Unwatched: the edit is read at the next retry.
    Deno.writeTextFileSync(`${root}/a/SKILL.md`, skillMd("a", "After"));
    const deadline = Date.now() + 20_000;
    while (store.current().byName.get("a")?.description !== "After") {
      assert.ok(Date.now() < deadline, "an edit under the limit was never read");
      await new Promise((ok) => setTimeout(ok, 25));
    }
    // The limit lifted: the next retry watches the root, and an edit is seen by its watcher.
    isLimited = false;
    while (refresh.unwatched.length > 0) {
      assert.ok(Date.now() < deadline, "the root was never watched again");
      await new Promise((ok) => setTimeout(ok, 25));
    }
    Deno.writeTextFileSync(`${root}/b/SKILL.md`, skillMd("b", "After"));
    while (store.current().byName.get("b")?.description !== "After") {
      assert.ok(Date.now() < deadline, "an edit after the limit lifted was never refreshed");
      await new Promise((ok) => setTimeout(ok, 25));
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
