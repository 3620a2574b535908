/**
 * A folder the inotify tree will not watch (more than 64 levels below its
 * root, review r17 hA-1's depth bound) through live refresh: one stderr line
 * naming the reason and what to do about it, once (a mode flipped on it is
 * not said again, hA-5), and the rest of the root still refreshes.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { startLiveRefresh } from "../../../src/refresh/live_refresh.ts";
import { directStarter } from "../../../src/refresh/watch_isolate.ts";
import { MAX_WATCH_DEPTH } from "../../../src/refresh/inotify/watch_tree.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { skillMd } from "../../skills/_tree.ts";

Deno.test("a folder past the watch's depth bound is said once on stderr with its reason and remedy; the root still refreshes", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-inotify-deep-" }));
  const lines: string[] = [];
  const consoleError = console.error;
  try {
    Deno.mkdirSync(`${root}/alpha`);
    Deno.writeTextFileSync(`${root}/alpha/SKILL.md`, skillMd("alpha", "Before"));
    const deep = `${root}/alpha/${Array(MAX_WATCH_DEPTH).fill("d").join("/")}`;
    Deno.mkdirSync(deep, { recursive: true });
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    console.error = (...args: unknown[]) => void lines.push(args.join(" "));
    await using refresh = await startLiveRefresh(store, {
      caps: DEFAULT_CAPS,
      isToolDescriptionMode: false,
      quietMs: 50,
      watchIsolate: { starter: directStarter([root]) },
    });
    const folder = `alpha/${Array(MAX_WATCH_DEPTH).fill("d").join("/")}`;
    assert.deepEqual(refresh.unwatched, [{ root, folder, why: "TooDeep" }]);
    for (let turn = 0; turn < 5; turn++) {
      Deno.chmodSync(deep, 0o700);
      Deno.chmodSync(deep, 0o755);
    }
    Deno.writeTextFileSync(`${root}/alpha/SKILL.md`, skillMd("alpha", "After"));
    const deadline = Date.now() + 20_000;
    while (store.current().byName.get("alpha")?.description !== "After") {
      assert.ok(Date.now() < deadline, "an edit in the root was never read");
      await new Promise((ok) => setTimeout(ok, 25));
    }
    const watchLines = lines.filter((line) => /live refresh/.test(line));
    assert.equal(watchLines.length, 1, watchLines.join("\n"));
    assert.match(watchLines[0]!, /TooDeep.*64 folder levels or fewer/);
    assert.equal(refresh.unwatched.length, 1);
  } finally {
    console.error = consoleError;
    await Deno.remove(root, { recursive: true });
  }
});
