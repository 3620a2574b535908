/**
 * Run by `unreadable_folder_test.ts` as a user who cannot read one folder of
 * the root (root cannot be refused a read, so the test runs this as `nobody`
 * when it is root): builds the catalog of the root given, starts live refresh
 * with a client subscribed to the sibling skill, edits the sibling's SKILL.md,
 * and prints one JSON line: what live refresh could not watch, and whether
 * the edit was served and notified. Exits 0 once it is (or after 20 s).
 *
 * Usage: deno run -A _unreadable_folder_harness.ts ROOT SIBLING
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

const [root = "", sibling = ""] = Deno.args;
const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
const store = createCatalogStore(catalog);
const updated: string[] = [];
await using session = await connectInMemory(store, {
  isLive: true,
  beforeConnect: (client) =>
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      updated.push(note.params.uri);
    }),
});
await session.client.subscribeResource({ uri: `skill://${sibling}/SKILL.md` });
await using refresh = await startLiveRefresh(store, {
  caps: DEFAULT_CAPS,
  isToolDescriptionMode: false,
  quietMs: 50,
});
await Deno.writeTextFile(`${root}/${sibling}/SKILL.md`, skillMd(sibling, "Edited"));
const deadline = Date.now() + 20_000;
const isDone = () =>
  store.current().byName.get(sibling)?.description === "Edited" &&
  updated.includes(`skill://${sibling}/SKILL.md`);
while (!isDone() && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 25));
console.log(JSON.stringify({
  unwatched: refresh.unwatched,
  description: store.current().byName.get(sibling)?.description ?? null,
  notified: updated.includes(`skill://${sibling}/SKILL.md`),
}));
