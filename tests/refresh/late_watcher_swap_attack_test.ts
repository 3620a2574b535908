/**
 * Attack (s24, rewritten in session 9 once the skill-file watcher is on again
 * in the watch isolate): a skill's file or folder removed and made again as a
 * symlink leading outside the roots while Deno's watcher thread runs late.
 * Deno 2.9.6's filter hands an event on only when its path, resolved when
 * the thread gets to it, is a watched path or under one (or no longer
 * exists): the roots' watcher drops both events of such a swap. The
 * skill-file watcher lists the small catalog's files, so the path resolves to
 * itself there and the events pass. Here the thread is held on purpose (a
 * FIFO in the root: the filter opens each event's path, and a FIFO's open
 * waits for a writer) until the swap is done, so the late filter happens
 * every run. The swap must be seen without any door being asked, and no
 * outside byte served.
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

/** Far above a refresh (50 ms quiet time) on a loaded machine; nothing is timed. */
const CEILING_MS = 20_000;

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

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
];

for (const shape of SHAPES) {
  Deno.test(`attack: ${shape.label} while the watcher thread is late: seen, and no outside byte served`, async () => {
    await using tree = await makeTree({
      "root/palette/SKILL.md": skillMd("palette", "Good palette"),
      "root/palette/notes.md": "good notes\n",
      "root/other/SKILL.md": skillMd("other"),
      "outside/SKILL.md": skillMd("palette", "Outside"),
      "outside/notes.md": "outside notes\n",
    });
    const at = tree.at.bind(tree);
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
      await shape.swap(at);
    } finally {
      await release();
    }
    // No client asks for the file: only the watcher can tell.
    await until(`the swap seen (${shape.label})`, () => shape.isSeen(store.current(), at));
    const served = JSON.stringify([
      await session.client.callTool({ name: "skill_list", arguments: {} }),
      await session.client.callTool({
        name: "skill_file",
        arguments: { name: "palette", paths: ["notes.md", "SKILL.md"] },
      }),
    ]);
    assert.doesNotMatch(served, /outside notes|Outside/);
  });
}
