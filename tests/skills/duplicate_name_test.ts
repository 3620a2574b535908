/**
 * Review n7 (05:00): look-alike skill names served side by side. Names equal
 * once Unicode-normalised and case-folded are one name: both folders are
 * refused like byte-equal duplicates, and the message names each folder
 * relative to its root.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { skillNameKey } from "../../src/skills/names.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

function duplicates(catalog: Catalog): { path: string; detail: string; severity: string }[] {
  return catalog.problems.filter((p) => p.reason === "duplicate-name");
}

Deno.test("skillNameKey() folds Unicode normal forms and case, and keeps different names apart", () => {
  const cases: [string, string, boolean][] = [
    ["caf\u00e9", "cafe\u0301", true],
    ["Pdf", "pdf", true],
    ["PDF-tools", "pdf-tools", true],
    ["stra\u00dfe", "STRASSE", true],
    ["\uff50\uff44\uff46", "pdf", true], // fullwidth letters (NFKC)
    ["pdf", "pdfs", false],
    ["pdf", "\u0440df", false], // Cyrillic er: a homoglyph, not the same name
  ];
  for (const [a, b, same] of cases) {
    assert.equal(skillNameKey(a) === skillNameKey(b), same, `${a} vs ${b}`);
  }
});

Deno.test("attack: buildCatalog() refuses both NFC and NFD spellings of one skill name", async () => {
  await using tree = await makeTree({
    "caf\u00e9/SKILL.md": skillMd("caf\u00e9", "nfc"),
    "cafe\u0301/SKILL.md": skillMd("cafe\u0301", "nfd"),
    "other/SKILL.md": skillMd("other"),
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["other"]);
  const found = duplicates(catalog);
  assert.deepEqual(
    found.map((p) => p.path).sort(),
    [tree.at("caf\u00e9"), tree.at("cafe\u0301")].sort(),
  );
  for (const problem of found) {
    assert.equal(problem.severity, "error");
    assert.match(problem.detail, /Unicode-normalised and case-folded/);
    assert.ok(problem.detail.includes('"caf\\u{00E9}"'), problem.detail);
    assert.ok(problem.detail.includes('"cafe\\u{0301}"'), problem.detail);
    assert.ok(problem.detail.includes(`under the root "${tree.path}"`), problem.detail);
    assert.match(problem.detail, /none of them is served/);
  }
});

Deno.test("attack: buildCatalog() refuses case twins Pdf and pdf, naming both folders relative to the root", async () => {
  await using tree = await makeTree({
    "Pdf/SKILL.md": skillMd("Pdf"),
    "group/pdf/SKILL.md": skillMd("pdf"),
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), []);
  const found = duplicates(catalog);
  assert.equal(found.length, 2);
  for (const problem of found) {
    assert.ok(problem.detail.includes('"Pdf", "group/pdf"'), problem.detail);
    assert.ok(!problem.detail.includes(tree.at("Pdf")), "folders are named relative to the root");
  }
});
