/**
 * A SKILL.md removed and replaced by a symlink leading outside the roots
 * (open finding after session 7: missed in 4 of 6 runs within ~300 ms of
 * connecting, so the skill kept its old entry). Deno 2.9.6's watcher hands an
 * event on only when the event's path, resolved when its one thread gets to
 * it (symlinks followed), is a watched path or under one, or no longer
 * exists. Once the symlink is there, the removal and the creation both
 * resolve outside every root and are dropped: whenever that thread runs late
 * (a busy machine, the busy moments after connecting), the swap left no
 * trace. Here the thread is held on purpose (a FIFO in the root: the filter
 * opens each event's path, and a FIFO's open waits for a writer) until the
 * swap is done, so the late filter happens every run.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after 20000 ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Holds Deno's watcher thread: a FIFO made in a watched folder is opened by
 * its event filter, which waits there for a writer. Returns the release:
 * opening the FIFO read-write (never waits on Linux) lets the filter's open
 * return, then the FIFO is removed before that handle closes, so no later
 * open of it can wait again.
 */
async function holdWatcherThread(fifo: string): Promise<() => Promise<void>> {
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(made.code, 0, "mkfifo failed");
  return async () => {
    const handle = await Deno.open(fifo, { read: true, write: true });
    try {
      await Deno.remove(fifo);
    } finally {
      handle.close();
    }
  };
}

Deno.test("attack: a SKILL.md swapped for a symlink leading outside while the watcher's thread runs late is still seen, and the skill leaves the catalog", async () => {
  await using tree = await makeTree({
    "root/palette/SKILL.md": skillMd("palette", "Good palette"),
    "root/other/SKILL.md": skillMd("other", "Good other"),
    "outside/SKILL.md": skillMd("palette", "Outside"),
  });
  const root = tree.at("root");
  const store = createCatalogStore(
    await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
  );
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
  });
  // A dot-entry of the root: its own events change nothing in the catalog.
  const release = await holdWatcherThread(tree.at("root/.hold"));
  try {
    await Deno.remove(tree.at("root/palette/SKILL.md"));
    await Deno.symlink(tree.at("outside/SKILL.md"), tree.at("root/palette/SKILL.md"));
  } finally {
    await release();
  }
  await until("palette to leave the catalog", () => !store.current().byName.has("palette"));
  const problems = store.current().problems;
  assert.ok(
    problems.some((found) =>
      found.reason === "symlink-escape" && found.path === tree.at("root/palette/SKILL.md")
    ),
    JSON.stringify(problems),
  );
  assert.equal(store.current().byName.get("other")?.description, "Good other");
});
