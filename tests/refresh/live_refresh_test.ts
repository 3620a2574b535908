import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { diffCatalogs } from "../../src/refresh/catalog_diff.ts";
import { createPathDebouncer } from "../../src/refresh/debounce.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { watchPaths } from "../../src/refresh/watch_paths.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { ResourceUpdatedNotificationSchema } from "../support/sdk_client.ts";
import { testCatalog } from "../mcp/resources/_catalog.ts";
import { connectInMemory } from "../mcp/skills_extension/_connect.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

Deno.test("createPathDebouncer() hands over one batch of distinct paths per burst", async () => {
  const batches: string[][] = [];
  const debouncer = createPathDebouncer((paths) => batches.push(paths), {
    quietMs: 50,
    maxWaitMs: 5000,
  });
  try {
    debouncer.add(["/a", "/b"]);
    debouncer.add(["/a"]);
    debouncer.add(["/c"]);
    await until("the batch", () => batches.length > 0);
    assert.deepEqual(batches, [["/a", "/b", "/c"]]);
    debouncer.add(["/d"]);
    await until("the second batch", () => batches.length > 1);
    assert.deepEqual(batches[1], ["/d"]);
  } finally {
    debouncer.close();
  }
  assert.throws(() => createPathDebouncer(() => {}, { quietMs: -1 }), RangeError);
});

Deno.test("diffCatalogs() tells list changes from content changes", () => {
  const before = testCatalog([{ name: "alpha", files: ["a.md"] }, { name: "beta" }]);
  const added = testCatalog([{ name: "alpha", files: ["a.md"] }, { name: "beta" }, {
    name: "gamma",
  }]);
  const change = diffCatalogs(before, added);
  assert.equal(change.promptsChanged, true);
  assert.equal(change.resourcesChanged, true);
  assert.equal(change.modelCatalogChanged, true);
  assert.deepEqual([...change.updatedUris], ["skill://gamma/SKILL.md"]);

  const described = testCatalog([
    { name: "alpha", files: ["a.md"], description: "New words" },
    { name: "beta" },
  ]);
  const edit = diffCatalogs(before, described);
  assert.equal(edit.promptsChanged, true);
  assert.equal(edit.resourcesChanged, false);
  assert.equal(edit.modelCatalogChanged, true);

  const same = diffCatalogs(before, before);
  assert.equal(same.anyChanged, false);
  assert.equal(same.updatedUris.size, 0);

  const withFile = testCatalog([{ name: "alpha", files: ["a.md", "b.md"] }, { name: "beta" }]);
  const file = diffCatalogs(before, withFile);
  assert.equal(file.resourcesChanged, true);
  assert.equal(file.promptsChanged, false);
  assert.equal(file.modelCatalogChanged, false, "the model's catalog text is unchanged");
  assert.ok(file.updatedUris.has("skill://alpha/b.md"));
});

Deno.test("startLiveRefresh() watches a symlinked skill's real folder and notifies subscribers", async () => {
  await using tree = await makeTree({
    ".store/linked/SKILL.md": skillMd("linked", "Before"),
    "linked": { symlink: ".store/linked" },
    "plain/SKILL.md": skillMd("plain"),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  const linked = catalog.byName.get("linked");
  assert.equal(linked?.dir, tree.at("linked"));
  assert.equal(linked?.realDir, await Deno.realPath(tree.at(".store/linked")));
  assert.deepEqual(await watchPaths(catalog), [tree.path, linked.realDir].sort());

  const store = createCatalogStore(catalog);
  const updated: string[] = [];
  await using session = await connectInMemory(store, {
    isLive: true,
    beforeConnect: (client) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        updated.push(note.params.uri);
      }),
  });
  await session.client.subscribeResource({ uri: "skill://linked/SKILL.md" });
  const reports: number[] = [];
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    onRefresh: (report) => reports.push(report.loaded),
  });
  assert.ok(refresh.watched.includes(linked.realDir));
  await Deno.writeTextFile(tree.at(".store/linked/SKILL.md"), skillMd("linked", "After"));
  await until(
    "the refreshed description",
    () => store.current().byName.get("linked")?.description === "After",
  );
  await until("resources/updated", () => updated.includes("skill://linked/SKILL.md"));
  assert.ok(reports.every((loaded) => loaded <= 1), "only the linked skill was read again");
  assert.equal(store.current().byName.get("plain"), catalog.byName.get("plain"));
});

Deno.test("attack: a flood of events costs the debouncer no timer per event, and the batch still waits out the quiet time", async () => {
  const batches: string[][] = [];
  const realSetTimeout = globalThis.setTimeout;
  let timersSet = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timersSet++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
  const debouncer = createPathDebouncer((paths) => batches.push(paths), {
    quietMs: 80,
    maxWaitMs: 5000,
  });
  try {
    for (let index = 0; index < 100_000; index++) debouncer.add(["/r/team", "/r/team.link"]);
    assert.ok(timersSet <= 2, `${timersSet} timers for 100,000 adds`);
    // Paths keep coming for a while: the batch waits until they stop.
    const startedMs = performance.now();
    while (performance.now() - startedMs < 200) {
      debouncer.add([`/r/late`]);
      await new Promise((resolve) => realSetTimeout(resolve, 20));
    }
    assert.equal(batches.length, 0, "handed over while paths still came");
    await until("the batch", () => batches.length > 0);
    assert.deepEqual(batches, [["/r/team", "/r/team.link", "/r/late"]]);
  } finally {
    globalThis.setTimeout = realSetTimeout;
    debouncer.close();
  }
});
