import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog, type SkillLoader } from "../../src/skills/catalog.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { addToTree, makeTree, skillMd } from "./_tree.ts";

/** A loader that counts the skill folders it loads, by name. */
function countingLoader(): { load: SkillLoader; loads: string[] } {
  const loads: string[] = [];
  return {
    loads,
    load: (candidate, caps) => {
      loads.push(candidate.name);
      return loadSkill(candidate, caps);
    },
  };
}

async function catalogOf(path: string, load?: SkillLoader): Promise<Catalog> {
  return await buildCatalog(
    [{ path, from: "argument" }],
    DEFAULT_CAPS,
    load === undefined ? {} : { load },
  );
}

/** Room for one skill over 10,000 (the default cap). */
const CAPS = { ...DEFAULT_CAPS, maxSkills: 20_000 };

const name = (i: number) => `skill-${String(i).padStart(5, "0")}`;

Deno.test("rebuildCatalog() re-reads only the edited skill in a 10,000-skill catalog", async () => {
  await using tree = await makeTree();
  const indexes = Array.from({ length: 10_000 }, (_, i) => i);
  for (let start = 0; start < indexes.length; start += 200) {
    await Promise.all(
      indexes.slice(start, start + 200).map(async (i) => {
        await Deno.mkdir(tree.at(`${name(i)}/references`), { recursive: true });
        await Deno.writeTextFile(tree.at(`${name(i)}/SKILL.md`), skillMd(name(i)));
        await Deno.writeTextFile(tree.at(`${name(i)}/references/guide.md`), "Guide\n");
      }),
    );
  }
  const counter = countingLoader();
  const first = await buildCatalog([{ path: tree.path, from: "argument" }], CAPS, {
    load: counter.load,
  });
  assert.equal(first.skills.length, 10_000);
  assert.equal(counter.loads.length, 10_000);

  counter.loads.length = 0;
  const edited = tree.at(`${name(5000)}/SKILL.md`);
  await Deno.writeTextFile(edited, skillMd(name(5000), "Edited description"));
  const afterEdit = await rebuildCatalog(first, [edited], {
    caps: CAPS,
    load: counter.load,
  });
  assert.deepEqual(counter.loads, [name(5000)], "one skill read again");
  assert.equal(afterEdit.isFullRescan, false);
  assert.equal(afterEdit.catalog.byName.get(name(5000))?.description, "Edited description");
  assert.equal(afterEdit.catalog.byName.get(name(4999)), first.byName.get(name(4999)));
  assert.equal(first.byName.get(name(5000))?.description, "Does skill-05000 things", "old intact");

  counter.loads.length = 0;
  const guide = tree.at(`${name(7)}/references/guide.md`);
  await Deno.writeTextFile(guide, "Guide, longer now\n");
  const afterFile = await rebuildCatalog(afterEdit.catalog, [guide], {
    caps: CAPS,
    load: counter.load,
  });
  assert.deepEqual(counter.loads, [name(7)], "a supporting file re-reads its skill only");
  const files = afterFile.catalog.byName.get(name(7))?.files ?? [];
  assert.equal(files.find((f) => f.path === "references/guide.md")?.size, 18);

  counter.loads.length = 0;
  await addToTree(tree.path, { "brand-new/SKILL.md": skillMd("brand-new") });
  const afterAdd = await rebuildCatalog(afterFile.catalog, [tree.at("brand-new")], {
    caps: CAPS,
    load: counter.load,
  });
  assert.equal(afterAdd.isFullRescan, true, "a new folder at root level needs discovery");
  assert.deepEqual(counter.loads, ["brand-new"], "unchanged skills are reused, not re-read");
  assert.equal(afterAdd.catalog.skills.length, 10_001);

  counter.loads.length = 0;
  await Deno.remove(tree.at(name(3)), { recursive: true });
  const afterDelete = await rebuildCatalog(afterAdd.catalog, [tree.at(name(3))], {
    caps: CAPS,
    load: counter.load,
  });
  assert.deepEqual(counter.loads, []);
  assert.equal(afterDelete.catalog.byName.has(name(3)), false);
  assert.equal(afterDelete.catalog.skills.length, 10_000);
});

Deno.test("rebuildCatalog() keeps the last good version of a skill whose SKILL.md breaks, until fixed", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First version"),
    "beta/SKILL.md": skillMd("beta"),
  });
  const first = await catalogOf(tree.path);
  const path = tree.at("alpha/SKILL.md");
  await Deno.writeTextFile(path, "---\nname: alpha\ndescription: [unclosed\n---\nBody\n");
  const broken = await rebuildCatalog(first, [path], { caps: DEFAULT_CAPS });
  const kept = broken.catalog.byName.get("alpha");
  assert.equal(kept?.description, "First version");
  assert.equal(kept?.isLastGood, true);
  const reported = broken.catalog.problems.find((p) => p.reason === "malformed-frontmatter");
  assert.match(reported?.detail ?? "", /catalog entry of the last version that loaded/);
  assert.ok(
    broken.catalog.problems.some((p) =>
      p.reason === "extension-excluded" && p.path === tree.at("alpha")
    ),
    "the extension stops listing it: its SKILL.md no longer matches the frontmatter",
  );

  await Deno.writeTextFile(path, skillMd("alpha", "Fixed version"));
  const fixed = await rebuildCatalog(broken.catalog, [path], { caps: DEFAULT_CAPS });
  assert.equal(fixed.catalog.byName.get("alpha")?.description, "Fixed version");
  assert.equal(fixed.catalog.byName.get("alpha")?.isLastGood, undefined);
  assert.deepEqual(fixed.catalog.problems, [], "every problem of the broken version is gone");
});

Deno.test("attack: rebuildCatalog() drops a skill whose SKILL.md is swapped for a symlink leading outside it", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First version"),
    "beta/SKILL.md": skillMd("beta"),
  });
  await using outside = await makeTree({ "SKILL.md": skillMd("alpha", "Outside bytes") });
  const first = await catalogOf(tree.path);
  const path = tree.at("alpha/SKILL.md");
  await Deno.remove(path);
  await Deno.symlink(outside.at("SKILL.md"), path);
  const swapped = await rebuildCatalog(first, [path], { caps: DEFAULT_CAPS });
  assert.equal(swapped.catalog.byName.has("alpha"), false, "no ghost: listed but unreadable");
  assert.deepEqual(swapped.catalog.skills.map((skill) => skill.name), ["beta"]);
  const reported = swapped.catalog.problems.find((p) => p.path === path);
  assert.equal(reported?.reason, "symlink-escape");
  assert.equal(reported?.severity, "error");

  await Deno.remove(path);
  await Deno.writeTextFile(path, skillMd("alpha", "Fixed version"));
  const fixed = await rebuildCatalog(swapped.catalog, [path], { caps: DEFAULT_CAPS });
  assert.equal(fixed.catalog.byName.get("alpha")?.description, "Fixed version");
  assert.deepEqual(fixed.catalog.problems, []);
});

Deno.test("rebuildCatalog() follows a renamed skill folder with a full rescan", async () => {
  await using tree = await makeTree({
    "old-name/SKILL.md": skillMd("old-name"),
    "other/SKILL.md": skillMd("other"),
  });
  const first = await catalogOf(tree.path);
  await Deno.rename(tree.at("old-name"), tree.at("new-name"));
  await Deno.writeTextFile(tree.at("new-name/SKILL.md"), skillMd("new-name"));
  const counter = countingLoader();
  const renamed = await rebuildCatalog(first, [tree.at("old-name"), tree.at("new-name")], {
    caps: DEFAULT_CAPS,
    load: counter.load,
  });
  assert.equal(renamed.isFullRescan, true);
  assert.deepEqual(renamed.catalog.skills.map((s) => s.name), ["new-name", "other"]);
  assert.deepEqual(counter.loads, ["new-name"]);
});

Deno.test("rebuildCatalog() ignores changes under dot-folders and node_modules", async () => {
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha") });
  const first = await catalogOf(tree.path);
  const counter = countingLoader();
  const ignored = await rebuildCatalog(first, [
    tree.at(".git/index"),
    tree.at("alpha/.SKILL.md.swp"),
    tree.at("alpha/node_modules/x/index.js"),
    tree.at("node_modules/y"),
  ], { caps: DEFAULT_CAPS, load: counter.load });
  assert.equal(ignored.catalog, first, "the same snapshot: nothing to swap");
  assert.deepEqual(counter.loads, []);
});

Deno.test("rebuildCatalog() sees supporting files added and removed", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "alpha/old.md": "old",
  });
  const first = await catalogOf(tree.path);
  await Deno.remove(tree.at("alpha/old.md"));
  await addToTree(tree.path, { "alpha/docs/new.md": "new" });
  const next = await rebuildCatalog(first, [tree.at("alpha/old.md"), tree.at("alpha/docs")], {
    caps: DEFAULT_CAPS,
  });
  assert.equal(next.isFullRescan, false);
  assert.deepEqual(next.catalog.byName.get("alpha")?.files.map((f) => f.path), [
    "SKILL.md",
    "docs/new.md",
  ]);
});
