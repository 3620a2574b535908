import assert from "node:assert/strict";
import { type IsolateEntry, isolateEntryUrl } from "../src/entry_points.ts";

/** Every isolate skillgate starts (the `IsolateEntry` union, spelled out so a new one is seen here). */
const ISOLATES: readonly IsolateEntry[] = [
  "worker",
  "declaration-reader",
  "fetcher",
  "digests",
  "on-demand",
];

const REPO = new URL("../", import.meta.url);

Deno.test("every isolate's entry module exists, is bundled by the launcher and is included by deno compile", async () => {
  const launcher = await Deno.readTextFile(new URL("skillgate", REPO));
  const bundled = launcher.match(/^BUNDLE_ENTRIES="([^"]*)"$/m)?.[1]?.split(" ") ?? [];
  const compile = await Deno.readTextFile(new URL(".ci/compile.sh", REPO));
  for (const isolate of ISOLATES) {
    const source = isolateEntryUrl(isolate);
    const relative = source.pathname.slice(REPO.pathname.length);
    assert.ok((await Deno.stat(source)).isFile, `${isolate}: ${relative} exists`);
    assert.ok(bundled.includes(relative), `${isolate}: ${relative} is in BUNDLE_ENTRIES`);
    if (isolate !== "worker") {
      assert.ok(
        compile.includes(`=${relative}\n`),
        `${isolate}: ${relative} is included by compile`,
      );
    }
    // Bundled, the same path under the bundle's root, as a .js module.
    const inBundle = isolateEntryUrl(isolate, "file:///b/chunk-1.js", "file:///b/main.js");
    assert.equal(inBundle.href, `file:///b/${relative.replace(/\.ts$/, ".js")}`);
  }
});
