/**
 * Review r15, against branch h11 (cca7c92, `plannedRealPath`): the fix
 * resolves each existing segment through its real path, but "from the first
 * segment that does not exist on, the rest is joined lexically". A `..`
 * after a missing segment climbs back into folders that exist, where the
 * kernel follows links again: `mkdir -p <t>/missing/../link/cache` makes
 * `<t>/missing`, then `<t>/missing/..` is `<t>`, `link` is followed, and
 * `cache` is made inside whatever `link` points at, a skill root here,
 * while the plan took `<t>/link/cache` lexically (outside every root).
 * Bad input must leave what the user had unchanged.
 */
import assert from "node:assert/strict";
import { prepareIndexCacheDir } from "../../src/config/index_cache_dir.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("attack: `..` after a missing segment then a symlinked folder never makes the index cache folder inside a root", async () => {
  await using tree = await makeTree({
    "skills/pdf/SKILL.md": "---\nname: pdf\n---\n",
    "link": { symlink: "skills" },
  });
  const root = Deno.realPathSync(tree.at("skills"));
  const dir = `${tree.path}/missing/../link/cache`;
  const prepared = prepareIndexCacheDir(dir, [root]);
  const left = [...Deno.readDirSync(root)].map((entry) => entry.name).sort();
  assert.deepEqual(
    left,
    ["pdf"],
    `nothing new at the root (prepared: ${JSON.stringify(prepared)})`,
  );
  assert.equal(prepared.dir, null, "the folder the kernel makes lies in a skill root: refused");
  assert.match(prepared.warning ?? "", /skill root|"\.\." segment/);
});
