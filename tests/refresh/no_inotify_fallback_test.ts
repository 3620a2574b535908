/**
 * Where inotify cannot be used (not Linux, no libc, no FFI), live refresh
 * says so in exactly one stderr line and reads the roots periodically: an
 * edit is still served. Forced here with a starter that has no inotify
 * service; the polling period is shortened; nothing asserts on time, a
 * ceiling only bounds the waits.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { NO_INOTIFY, serviceStarter } from "../../src/refresh/watch_isolate.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const CEILING_MS = 30_000;

Deno.test("no inotify: the roots are read periodically, said once, and edits are still served", async () => {
  await using tree = await makeTree({
    "root/alpha/SKILL.md": skillMd("alpha", "Before"),
    "root/beta/SKILL.md": skillMd("beta"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS),
  );
  const lines: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    await using _refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchIsolate: { starter: serviceStarter(null, []) },
      pollMs: 300,
    });
    const deadline = Date.now() + CEILING_MS;
    await Deno.writeTextFile(tree.at("root/alpha/SKILL.md"), skillMd("alpha", "After"));
    while (store.current().byName.get("alpha")?.description !== "After" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(store.current().byName.get("alpha")?.description, "After", "served by polling");
    const said = lines.filter((line) => line.includes("does not watch the roots"));
    assert.equal(said.length, 1, lines.join("\n"));
    assert.ok(said[0]!.includes(NO_INOTIFY));
    assert.match(said[0]!, /reads them every 0\.3 s instead/);
  } finally {
    console.error = error;
  }
});
