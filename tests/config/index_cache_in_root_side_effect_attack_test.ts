/**
 * Attack (r12): `--index-cache` (or `XDG_CACHE_HOME`) pointed inside a skill
 * root is refused (`rootAround`), but only after `prepareIndexCacheDir()`
 * made the folders: the refused configuration still adds folders among the
 * owner's skills (a new folder in a skill is a change live refresh reacts to,
 * and an empty top-level folder is a candidate skill folder discovery reports).
 * Bad input must leave what the user had unchanged.
 */
import assert from "node:assert/strict";
import { prepareIndexCacheDir } from "../../src/config/index_cache_dir.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("attack: an index cache folder inside a skill root is refused without creating anything there", async () => {
  await using tree = await makeTree({ "skills/pdf/SKILL.md": "---\nname: pdf\n---\n" });
  const root = Deno.realPathSync(tree.at("skills"));
  for (const dir of [`${root}/cache/skillgate/index`, `${root}/pdf/index-cache`]) {
    const prepared = prepareIndexCacheDir(dir, [root]);
    assert.equal(prepared.dir, null, dir);
    assert.match(prepared.warning ?? "", /skill root/, dir);
  }
  const left = [...Deno.readDirSync(root)].map((entry) => entry.name).sort();
  assert.deepEqual(left, ["pdf"], "nothing new at the root");
  const inSkill = [...Deno.readDirSync(`${root}/pdf`)].map((entry) => entry.name).sort();
  assert.deepEqual(inSkill, ["SKILL.md"], "nothing new in the skill");
});

Deno.test("attack: a cache folder spelled with `..` after a symlinked parent is refused before anything is made", async () => {
  await using tree = await makeTree({
    "skills/pdf/SKILL.md": "---\nname: pdf\n---\n",
    "elsewhere": { dir: true },
    // Lexically `<t>/link/../cache` is `<t>/cache`; the kernel goes to the parent of the target.
    "link": { symlink: "skills/pdf" },
  });
  const root = Deno.realPathSync(tree.at("skills"));
  const dir = `${tree.path}/link/../cache`;
  const prepared = prepareIndexCacheDir(dir, [root]);
  assert.equal(prepared.dir, null);
  assert.match(prepared.warning ?? "", /"\.\." segment; give it without "\.\."/);
  assert.deepEqual([...Deno.readDirSync(root)].map((entry) => entry.name), ["pdf"], "nothing made");
  // Any `..` is refused, wherever it would lead (review r15, H5: no plan of it is exact).
  await Deno.remove(tree.at("link"));
  await Deno.symlink(`${tree.path}/elsewhere`, tree.at("link"));
  const outside = prepareIndexCacheDir(`${tree.path}/link/../cache-ok`, [root]);
  assert.equal(outside.dir, null);
  assert.equal(Deno.statSync(tree.path).isDirectory && existsNot(`${tree.path}/cache-ok`), true);
});

function existsNot(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return false;
  } catch {
    return true;
  }
}
