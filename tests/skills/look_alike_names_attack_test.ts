/**
 * Attack (r11 on s25): look-alike skill names. A name that displays like
 * another served name (a Cyrillic or Greek letter drawn like a Latin one, or
 * an invisible character added) must not be served beside it: both are
 * `duplicate-name` (or the odd one is `unusable-name`). And no false
 * positive: names in Greek or Cyrillic that look like no other served name
 * are served.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

/** Each twin of `pdf` that displays as `pdf` (or nearly so) in a client's list. */
const TWINS: readonly (readonly [string, string])[] = [
  ["Cyrillic er", "\u0440df"],
  ["Cyrillic komi de", "p\u0501f"], // Cyrillic komi de
  ["Greek rho", "\u03c1df"],
  ["zero width space", "pdf\u200b"],
  ["soft hyphen", "pd\u00adf"],
  ["word joiner", "pdf\u2060"],
  ["combining grapheme joiner", "pd\u034ff"],
  ["zero width non-joiner", "pd\u200cf"],
  ["Hangul filler", "pdf\u3164"],
  ["tag character", "pdf\u{e0041}"],
];

for (const [label, twin] of TWINS) {
  Deno.test(`attack: a ${label} twin of "pdf" is not served beside it`, async () => {
    await using tree = await makeTree({
      "pdf/SKILL.md": skillMd("pdf", "latin"),
      [`${twin}/SKILL.md`]: skillMd(twin, "twin"),
      "other/SKILL.md": skillMd("other"),
    });
    const catalog = await build(tree.path);
    const served = catalog.skills.map((skill) => skill.name);
    assert.ok(
      !(served.includes("pdf") && served.includes(twin)),
      `both served: ${JSON.stringify(served)}`,
    );
    assert.ok(served.includes("other"));
  });
}

Deno.test("attack: Greek and Cyrillic names that look like no other served name are all served", async () => {
  const names = [
    "\u043f\u0440\u0438\u043c\u0435\u0440",
    "\u03b1\u03bb\u03c6\u03b1",
    "\u0434\u0430\u043d\u043d\u044b\u0435",
    "alpha",
    "primer",
  ];
  const entries: Record<string, string> = {};
  for (const name of names) entries[`${name}/SKILL.md`] = skillMd(name, "legit");
  await using tree = await makeTree(entries);
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((skill) => skill.name).sort(), [...names].sort());
  assert.deepEqual(catalog.problems.filter((p) => p.severity === "error"), []);
});
