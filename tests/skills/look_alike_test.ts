/**
 * Cross-script look-alike skill names (Unicode TR39 confusables): Cyrillic
 * `рdf` and Latin `pdf` are one name to a reader, so both folders are refused
 * as `duplicate-name`, with a message naming both spellings.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { isLookAlikeOnly, lookAlikeKey } from "../../src/skills/look_alike.ts";
import { makeTree, skillMd } from "./_tree.ts";

Deno.test("lookAlikeKey() maps letters of other scripts drawn like Latin ones, never ASCII itself", () => {
  const cases: [string, string, boolean][] = [
    ["pdf", "\u0440df", true], // Cyrillic er
    ["data", "d\u0430t\u0430", true], // Cyrillic a twice
    ["code-review", "c\u043ede-r\u0435view", true], // Cyrillic o, e
    ["\u0420DF", "pdf", true], // Cyrillic capital Er, folded first
    ["nova", "n\u03bfv\u0430", true], // Greek omicron, Cyrillic a
    ["help", "he\u04c0p", true], // uppercase palochka, drawn like l (mapped before folding)
    ["\u03a1df", "pdf", true], // Greek capital Rho
    ["burn", "bum", false], // the full skeleton's rn/m is not applied to ASCII
    ["v1", "vl", false],
    ["caf\u00e9", "cafe", false], // an accent is visible: not a look-alike
    ["pdf", "pdfs", false],
  ];
  for (const [a, b, same] of cases) {
    assert.equal(lookAlikeKey(a) === lookAlikeKey(b), same, `${a} vs ${b}`);
  }
  assert.equal(isLookAlikeOnly("pdf", "\u0440df"), true);
  assert.equal(isLookAlikeOnly("Pdf", "pdf"), false, "case twins are the plain rule's");
});

Deno.test("attack: buildCatalog() refuses Latin pdf and Cyrillic рdf as duplicate-name, naming both", async () => {
  await using tree = await makeTree({
    "pdf/SKILL.md": skillMd("pdf"),
    "\u0440df/SKILL.md": skillMd("\u0440df"),
    "other/SKILL.md": skillMd("other"),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["other"]);
  const found = catalog.problems.filter((p) => p.reason === "duplicate-name");
  assert.deepEqual(found.map((p) => p.path).sort(), [tree.at("pdf"), tree.at("\u0440df")].sort());
  for (const problem of found) {
    assert.equal(problem.severity, "error");
    assert.match(problem.detail, /look alike/);
    assert.ok(problem.detail.includes('"pdf"'), problem.detail);
    assert.ok(problem.detail.includes('"\\u{0440}df"'), problem.detail);
    assert.match(problem.detail, /none of them is served/);
  }
});

Deno.test("attack: buildCatalog() refuses a name holding an invisible character (it displays as another name), and serves pdf", async () => {
  const twins = [
    "pdf\u200b",
    "pd\u00adf",
    "pdf\u2060",
    "pd\u034ff",
    "pd\u200cf",
    "pdf\u3164",
    "pdf\u{e0041}",
  ];
  const files: Record<string, string> = { "pdf/SKILL.md": skillMd("pdf") };
  for (const twin of twins) files[`${twin}/SKILL.md`] = skillMd(twin);
  await using tree = await makeTree(files);
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["pdf"]);
  const unusable = catalog.problems.filter((p) => p.reason === "unusable-name");
  assert.equal(unusable.length, twins.length);
  for (const problem of unusable) assert.match(problem.detail, /invisible-character/);
});

Deno.test("buildCatalog() serves Greek and Cyrillic names that look like no Latin name beside Latin ones", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "\u03b1\u03bb\u03c6\u03b1/SKILL.md": skillMd("\u03b1\u03bb\u03c6\u03b1"),
    "\u0434\u0430\u043d\u043d\u044b\u0435/SKILL.md": skillMd(
      "\u0434\u0430\u043d\u043d\u044b\u0435",
    ),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  assert.equal(catalog.skills.length, 3);
  assert.deepEqual(catalog.problems.filter((p) => p.severity === "error"), []);
});
