/**
 * Issue 11 item 8: links that discovery and the listing do not follow, and a
 * non-text `name:`, each get a problem with a stable reason instead of being
 * dropped silently.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

Deno.test("attack: a skill folder symlinked to a sibling skill (root/alias -> root/real) gets a symlink-alias problem", async () => {
  await using tree = await makeTree({
    "real/SKILL.md": skillMd("real"),
    "alias": { symlink: "real" },
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["real"]);
  const problems = catalog.problems.filter((p) => p.reason === "symlink-alias");
  assert.equal(problems.length, 1, JSON.stringify(catalog.problems));
  assert.equal(problems[0]?.path, tree.at("alias"));
  assert.equal(problems[0]?.severity, "warning");
  assert.match(problems[0]?.detail ?? "", /skill "real"/);
});

Deno.test("attack: a skill folder symlinked to a skill inside a group folder gets a symlink-alias problem", async () => {
  await using tree = await makeTree({
    "group/real/SKILL.md": skillMd("real"),
    "other/SKILL.md": skillMd("other"),
    "alias": { symlink: "group/real" },
    "inner": { symlink: "other/sub" },
    "other/sub/x.md": "x\n",
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["other", "real"]);
  const aliases = catalog.problems.filter((p) => p.reason === "symlink-alias");
  assert.deepEqual(aliases.map((p) => p.path).sort(), [tree.at("alias"), tree.at("inner")]);
  assert.match(
    aliases.find((p) => p.path === tree.at("inner"))?.detail ?? "",
    /inside skill "other"/,
  );
});

Deno.test("attack: loop links inside a skill (sub/up -> .., sub/self -> .) get symlink-loop problems", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/sub/a.md": "a\n",
    "s/sub/up": { symlink: ".." },
    "s/sub/self": { symlink: "." },
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.byName.get("s")?.files.map((f) => f.path), ["SKILL.md", "sub/a.md"]);
  const loops = catalog.problems.filter((p) => p.reason === "symlink-loop");
  assert.deepEqual(loops.map((p) => p.path).sort(), [tree.at("s/sub/self"), tree.at("s/sub/up")]);
  assert.ok(loops.every((p) => p.severity === "warning"));
});

Deno.test("attack: a non-text name (name: 12306) gets an invalid-frontmatter problem saying so", async () => {
  await using tree = await makeTree({
    "12306/SKILL.md": "---\nname: 12306\ndescription: Trains.\n---\nbody\n",
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["12306"]);
  const problem = catalog.problems.find((p) => p.reason === "invalid-frontmatter");
  assert.match(problem?.detail ?? "", /name must be text, found the number "12306"/);
  assert.equal(problem?.line, 2);
});
