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

Deno.test("attack: a supporting file swapped for an outside symlink in a catalog of 20 skills of 4 files while the watcher runs late leaves the skill's listing", async () => {
  const some: Record<string, TreeEntry> = {};
  for (let index = 0; index < 20; index++) {
    some[`root/s${index}/SKILL.md`] = skillMd(`s${index}`, `Skill ${index}`);
    for (const file of ["guide.md", "reference.md", "example.md"]) {
      some[`root/s${index}/${file}`] = `${file} of ${index}\n`;
    }
  }
  await scenario(
    some,
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

Deno.test("attack: a SKILL.md swapped for an outside symlink in a catalog of 300 skills while the watcher runs late leaves the catalog", async () => {
  const many: Record<string, TreeEntry> = {};
  for (let index = 0; index < 300; index++) {
    many[`root/s${index}/SKILL.md`] = skillMd(`s${index}`, `Skill ${index}`);
  }
  await scenario(
    many,
    async (at) => {
      await Deno.remove(at("root/palette/SKILL.md"));
      await Deno.symlink(at("outside/SKILL.md"), at("root/palette/SKILL.md"));
    },
    (store) => !store.current().byName.has("palette"),
    "palette to leave the catalog",
  );
});

Deno.test("attack: a skill added after start, then swapped for an outside symlink while the watcher runs late, leaves the catalog", async () => {
  await using tree = await makeTree({
    "root/other/SKILL.md": skillMd("other", "Good other"),
    "outside/SKILL.md": skillMd("late", "Outside"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS),
  );
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
  });
  await Deno.mkdir(tree.at("root/late"));
  await Deno.writeTextFile(tree.at("root/late/SKILL.md"), skillMd("late", "Added later"));
  await until("the added skill", () => store.current().byName.has("late"));
  const release = await holdWatcherThread(tree.at("root/.hold"));
  try {
    await Deno.remove(tree.at("root/late/SKILL.md"));
    await Deno.symlink(tree.at("outside/SKILL.md"), tree.at("root/late/SKILL.md"));
  } finally {
    await release();
  }
  await until("late to leave the catalog", () => !store.current().byName.has("late"));
});
