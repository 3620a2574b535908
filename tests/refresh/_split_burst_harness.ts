/**
 * Run by `split_watch_burst_attack_test.ts` as a user who cannot read one
 * folder of the root (as `nobody` when the test runs as root): starts live
 * refresh over the root (its watch is split: thousands of watched paths),
 * then edits `EDITS` different skills' SKILL.md 50 ms apart and waits up to
 * 20 s for every edit to be served. Prints one JSON line and exits 0.
 *
 * Usage: deno run -A _split_burst_harness.ts ROOT EDITS
 *
 * @module
 */

import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { skillMd } from "../skills/_tree.ts";

/** How long all edits may take to be served, in ms. */
const SERVED_WAIT_MS = 20_000;

const [root = "", edits = "20"] = Deno.args;
const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
const store = createCatalogStore(catalog);
await using refresh = await startLiveRefresh(store, {
  caps: DEFAULT_CAPS,
  isToolDescriptionMode: false,
  quietMs: 50,
});
const names = catalog.skills.map((skill) => skill.name).filter((name) => name !== "locked");
const step = Math.max(1, Math.floor(names.length / Number(edits)));
const edited = new Map<string, string>();
for (let i = 0; i < Number(edits); i++) {
  const name = names[(i * step) % names.length]!;
  const text = `Burst edit ${i}`;
  await Deno.writeTextFile(`${root}/${name}/SKILL.md`, skillMd(name, text));
  edited.set(name, text);
  await new Promise((ok) => setTimeout(ok, 50));
}
const deadline = Date.now() + SERVED_WAIT_MS;
const unserved = () =>
  [...edited].filter(([name, text]) => store.current().byName.get(name)?.description !== text)
    .map(([name]) => name);
while (unserved().length > 0 && Date.now() < deadline) {
  await new Promise((ok) => setTimeout(ok, 50));
}
console.log(JSON.stringify({
  unwatched: refresh.unwatched.map((lost) => lost.folder),
  edits: edited.size,
  unserved: unserved(),
}));
