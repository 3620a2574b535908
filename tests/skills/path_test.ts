import assert from "node:assert/strict";
import { baseName, isInside, joinPath, parentPath } from "../../src/skills/_path.ts";
import { mapPool } from "../../src/skills/_pool.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { makeTree, skillMd } from "./_tree.ts";

Deno.test("isInside() is bounded by the separator", () => {
  assert.equal(isInside("/a/b", "/a/b"), true);
  assert.equal(isInside("/a/b/c", "/a/b"), true);
  assert.equal(isInside("/a/bc", "/a/b"), false);
  assert.equal(isInside("/a", "/a/b"), false);
  assert.equal(isInside("/x", "/"), true);
});

Deno.test("joinPath(), baseName() and parentPath() work lexically", () => {
  assert.equal(joinPath("/r", "a", "b/c"), "/r/a/b/c");
  assert.equal(joinPath("/r/", "a"), "/r/a");
  assert.equal(baseName("/r/skill/"), "skill");
  assert.equal(baseName("/"), "");
  assert.equal(parentPath("/r/a"), "/r");
  assert.equal(parentPath("/r"), "/");
  assert.equal(parentPath("/"), null);
});

Deno.test("mapPool() keeps input order whatever finishes first", async () => {
  const delays = [30, 0, 20, 5, 10];
  const out = await mapPool(delays, 2, async (ms, i) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return i;
  });
  assert.deepEqual(out, [0, 1, 2, 3, 4]);
});

Deno.test("buildCatalog() treats a sibling with a longer name as outside the root", async () => {
  await using tree = await makeTree({
    "root/link": { symlink: "../rootx/s" },
    "rootx/s/SKILL.md": skillMd("s"),
  });
  const catalog = await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS);
  assert.deepEqual(catalog.skills, []);
  assert.equal(catalog.problems[0]?.reason, "symlink-escape");
  assert.equal(catalog.problems[0]?.path, tree.at("root/link"));
});
