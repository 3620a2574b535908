/**
 * Attack (r11 on s24): swaps for symlinks leading outside the roots while
 * Deno's watcher thread runs late (held on purpose by a FIFO in the root, as
 * tests/refresh/outside_symlink_swap_attack_test.ts does on s24). Beyond a
 * SKILL.md swap in a small catalog: a supporting file swapped, a whole skill
 * folder swapped, and a SKILL.md swapped in a catalog of more than 256
 * skills. Each must be seen: the file leaves the skill's listing, the skill
 * leaves the catalog.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd, type TreeEntry } from "../skills/_tree.ts";

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after 20000 ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Holds Deno's watcher thread on a FIFO's open until the returned release runs. */
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

async function scenario(
  extra: Record<string, TreeEntry>,
  swap: (at: (path: string) => string) => Promise<void>,
  seen: (store: ReturnType<typeof createCatalogStore>) => boolean,
  what: string,
): Promise<void> {
  await using tree = await makeTree({
    "root/palette/SKILL.md": skillMd("palette", "Good palette"),
    "root/palette/notes.md": "good notes\n",
    "root/other/SKILL.md": skillMd("other", "Good other"),
    "outside/SKILL.md": skillMd("palette", "Outside"),
    "outside/notes.md": "OUTSIDE\n",
    ...extra,
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS),
  );
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
  });
  const release = await holdWatcherThread(tree.at("root/.hold"));
  try {
    await swap(tree.at);
  } finally {
    await release();
  }
  await until(what, () => seen(store));
  assert.equal(store.current().byName.get("other")?.description, "Good other");
}

Deno.test("attack: a supporting file swapped for an outside symlink while the watcher runs late leaves the skill's listing", async () => {
  await scenario(
    {},
    async (at) => {
      await Deno.remove(at("root/palette/notes.md"));
      await Deno.symlink(at("outside/notes.md"), at("root/palette/notes.md"));
    },
    (store) =>
      store.current().byName.get("palette")?.files.some((file) => file.path === "notes.md") ===
        false,
    "notes.md to leave palette's listing",
  );
});

Deno.test("attack: a skill folder swapped for an outside symlink while the watcher runs late leaves the catalog", async () => {
  await scenario(
    {},
    async (at) => {
      await Deno.remove(at("root/palette"), { recursive: true });
      await Deno.symlink(at("outside"), at("root/palette"));
    },
    (store) => !store.current().byName.has("palette"),
    "palette to leave the catalog",
  );
});

// Open (review r11, session 8): past the skill-file watcher's 64-path bound (a catalog of 20 skills
// of 4 files, a 300-skill catalog) and for a skill added after start, such a swap is seen only when
// a door is refused the file (stale_hint.ts); the listing keeps the old entry until then, though no
// outside byte is served. Those three cases are on branch r11 until a watcher can cover them.
