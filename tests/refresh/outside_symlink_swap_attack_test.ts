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
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";
import { holdWatcherThread } from "./_hold_watcher.ts";
import { connectInMemory } from "../mcp/skills_extension/_connect.ts";

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after 20000 ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A swap of palette's files for outside ones, and what the catalog shows once it is seen. */
interface Shape {
  readonly label: string;
  readonly swap: (at: (relative: string) => string) => Promise<void>;
  readonly isSeen: (catalog: Catalog, at: (relative: string) => string) => boolean;
}

const isEscaped = (relative: string) => (catalog: Catalog, at: (relative: string) => string) =>
  !catalog.byName.has("palette") &&
  catalog.problems.some((found) =>
    found.reason === "symlink-escape" && found.path === at(relative)
  );

const SHAPES: readonly Shape[] = [
  {
    label: "a SKILL.md removed and made again as a symlink leading outside",
    swap: async (at) => {
      await Deno.remove(at("root/palette/SKILL.md"));
      await Deno.symlink(at("outside/SKILL.md"), at("root/palette/SKILL.md"));
    },
    isSeen: isEscaped("root/palette/SKILL.md"),
  },
  {
    label: "a supporting file removed and made again as a symlink leading outside",
    swap: async (at) => {
      await Deno.remove(at("root/palette/notes.md"));
      await Deno.symlink(at("outside/notes.md"), at("root/palette/notes.md"));
    },
    isSeen: (catalog) =>
      catalog.byName.get("palette")?.files.some((file) => file.path === "notes.md") === false,
  },
  {
    label: "a skill folder removed and made again as a symlink to an outside folder",
    swap: async (at) => {
      await Deno.remove(at("root/palette"), { recursive: true });
      await Deno.symlink(at("outside"), at("root/palette"));
    },
    isSeen: isEscaped("root/palette"),
  },
];

// The SHAPES cases with a small catalog (the skill-file watcher lists its files) are in
// late_watcher_swap_attack_test.ts; here the catalog is past that watcher's bound, so the swap is
// caught by the door below.
void SHAPES;

Deno.test("attack: a swap for an outside symlink the watcher missed is read again once a door is refused the file", async () => {
  // 80 skills of 2 files: over 64 paths, so the skill-file watcher lists nothing of them.
  const entries: Record<string, string> = {
    "root/palette/SKILL.md": skillMd("palette", "Good palette"),
    "root/palette/notes.md": "good notes\n",
    "outside/SKILL.md": skillMd("palette", "Outside"),
    "outside/notes.md": "outside notes\n",
  };
  for (let i = 0; i < 80; i++) {
    entries[`root/s${i}/SKILL.md`] = skillMd(`s${i}`);
    entries[`root/s${i}/notes.md`] = "notes\n";
  }
  await using tree = await makeTree(entries);
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS),
  );
  await using session = await connectInMemory(store, { flags: ["--tools=always"] });
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
  });
  const release = await holdWatcherThread(tree.at("root/.hold"));
  try {
    await Deno.remove(tree.at("root/palette/notes.md"));
    await Deno.symlink(tree.at("outside/notes.md"), tree.at("root/palette/notes.md"));
    await Deno.remove(tree.at("root/palette/SKILL.md"));
    await Deno.symlink(tree.at("outside/SKILL.md"), tree.at("root/palette/SKILL.md"));
  } finally {
    await release();
  }
  // No watcher event came for either file: the catalog still lists both.
  assert.ok(store.current().byName.has("palette"));
  const file = await session.client.callTool({
    name: "skill_file",
    arguments: { name: "palette", paths: ["notes.md"] },
  });
  assert.doesNotMatch(JSON.stringify(file), /outside notes/);
  await until("palette to leave the catalog", () => !store.current().byName.has("palette"));
  assert.ok(
    store.current().problems.some((found) =>
      found.reason === "symlink-escape" && found.path === tree.at("root/palette/SKILL.md")
    ),
  );
});
