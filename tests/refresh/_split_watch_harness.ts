/**
 * Run by `split_watch_replan_attack_test.ts` as a user who cannot read one
 * folder of the root (the test runs this as `nobody` when it is root): starts
 * live refresh (the root's watch is split), adds a skill folder to the root
 * (its flat-watched entries change: the watch is planned again), then edits a
 * sibling skill's SKILL.md `EDITS` times in a row, each waited for up to 10 s
 * (served and notified). Prints one JSON line and exits 0.
 *
 * Usage: deno run -A _split_watch_harness.ts ROOT SIBLING EDITS
 *
 * @module
 */

import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { ResourceUpdatedNotificationSchema } from "../support/sdk_client.ts";
import { connectInMemory } from "../mcp/skills_extension/_connect.ts";
import { skillMd } from "../skills/_tree.ts";

/** How long one edit may take to be served and notified, in ms. */
const EDIT_WAIT_MS = 10_000;

const [root = "", sibling = "", edits = "10"] = Deno.args;
const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
const store = createCatalogStore(catalog);
let notes = 0;
await using session = await connectInMemory(store, {
  isLive: true,
  beforeConnect: (client) =>
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      if (note.params.uri === `skill://${sibling}/SKILL.md`) notes++;
    }),
});
await session.client.subscribeResource({ uri: `skill://${sibling}/SKILL.md` });
await using refresh = await startLiveRefresh(store, {
  caps: DEFAULT_CAPS,
  isToolDescriptionMode: false,
  quietMs: 50,
});
const waitFor = async (isDone: () => boolean): Promise<boolean> => {
  const deadline = Date.now() + EDIT_WAIT_MS;
  while (!isDone() && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 25));
  return isDone();
};
await Deno.mkdir(`${root}/added`);
await Deno.writeTextFile(`${root}/added/SKILL.md`, skillMd("added"));
const isAdded = await waitFor(() => store.current().byName.get("added") !== undefined);
const served: boolean[] = [];
for (let i = 1; i <= Number(edits); i++) {
  const text = `Edited ${i}`;
  const before = notes;
  await Deno.writeTextFile(`${root}/${sibling}/SKILL.md`, skillMd(sibling, text));
  served.push(
    await waitFor(() =>
      store.current().byName.get(sibling)?.description === text && notes > before
    ),
  );
}
console.log(JSON.stringify({ unwatched: refresh.unwatched, isAdded, served }));
