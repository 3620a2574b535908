/**
 * Attack: FIFOs made again and again in a root, so that every fresh watch
 * isolate's watcher thread is stuck in turn (each leaks a thread until
 * exit). Past the bound of replacements live refresh stops watching, says
 * so in exactly one stderr line (with what to do), and reads the roots
 * periodically: an edit is still served. Probes and the polling period are
 * shortened here; nothing asserts on time, a ceiling only bounds the waits.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const CEILING_MS = 60_000;

Deno.test("attack: FIFOs stick every fresh watch isolate: past the bound the roots are read periodically, said once, and edits are still served", async () => {
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
  const fifos: string[] = [];
  try {
    await using _refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchIsolate: { probeIntervalMs: 100, stuckAfterMs: 1_000, maxReplacements: 1 },
      pollMs: 300,
    });
    const givenUp = () => lines.some((line) => line.includes("no longer watches the roots"));
    const deadline = Date.now() + CEILING_MS;
    // Each new FIFO in the root is opened by the current isolate's event filter, which waits.
    for (let n = 0; !givenUp() && Date.now() < deadline; n++) {
      const fifo = join(tree.at("root/beta"), `pipe${n}`);
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert.equal(made.code, 0);
      fifos.push(fifo);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.ok(givenUp(), lines.join("\n"));
    await Deno.writeTextFile(tree.at("root/alpha/SKILL.md"), skillMd("alpha", "After"));
    while (store.current().byName.get("alpha")?.description !== "After" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(store.current().byName.get("alpha")?.description, "After", "served by polling");
    const said = lines.filter((line) => line.includes("no longer watches the roots"));
    assert.equal(said.length, 1, "said once");
    assert.match(said[0]!, /reads them every 0\.3 s instead\. Remove FIFOs/);
  } finally {
    console.error = error;
    // Unblocks the stuck watcher threads (each waits in one FIFO's open).
    for (const fifo of fifos) {
      const handle = await Deno.open(fifo, { read: true, write: true });
      handle.close();
    }
  }
});
