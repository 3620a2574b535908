import assert from "node:assert/strict";
import { parseFrontmatter, parseFrontmatterWithYaml } from "../../src/skills/frontmatter.ts";
import { splitFrontmatter } from "../../src/skills/frontmatter_split.ts";
import { parsePlainFrontmatter } from "../../src/skills/frontmatter_plain.ts";
import { seededRandom } from "../support/seeded_random.ts";
import { generatedSkill } from "../../bench/support/skill_generator.ts";

/** The fast path's answer for a whole SKILL.md, or null when it declines. */
function plainOf(text: string) {
  const split = splitFrontmatter(text);
  assert.ok(split.ok);
  return parsePlainFrontmatter(split.yaml, split.yamlStartLine);
}

/** Asserts the fast path, when it accepts, gives exactly what the YAML parser gives. */
function assertAgrees(text: string): boolean {
  const plain = plainOf(text);
  const reference = parseFrontmatterWithYaml(text);
  if (plain === null) return false;
  assert.ok(reference.ok, `the parser refuses what the fast path took:\n${text}`);
  assert.deepEqual(plain.frontmatter, reference.frontmatter, text);
  assert.deepEqual([...plain.keyLines], [...reference.keyLines], text);
  assert.deepEqual(parseFrontmatter(text), reference);
  return true;
}

const VALUES = [
  "Does things",
  "yes",
  "No",
  "on",
  "True",
  "TRUE",
  "true",
  "false",
  "null",
  "Null",
  "~",
  "12",
  "1.5",
  "0x1F",
  "0o17",
  ".inf",
  "-1",
  "+1",
  "2024-01-15",
  "a: b",
  "a:b",
  "a:",
  "ends with space ",
  "has # hash",
  "has #hash",
  "has\ttab",
  "http://example.com/x?y=1",
  "it's fine",
  'say "hi"',
  '"quoted"',
  '"with \\n escape"',
  '"with "inner" quote"',
  "'single'",
  "'it''s'",
  "'unclosed",
  '"unclosed',
  "&anchor",
  "*alias",
  "!tag value",
  "!!str x",
  "| block",
  "> folded",
  "[a, b]",
  "{a: b}",
  "a [b] {c}, d",
  "- item",
  "? key",
  "% pct",
  "@at",
  "`tick",
  "Ünïcödé text",
  "emoji 🎉 here",
  "a - b > c < d",
  "NaN",
  "Infinity",
  "a\u2028b",
  "x\u00a0y",
  "",
];
/** Values the fast path takes, so accepted blocks are common in the corpus. */
const PLAIN = ["Does things", "yes", "No", "a:b", "it's fine", '"1.0"', "'x'", "Ünïcödé text"];
const KEYS = [
  "name",
  "description",
  "license",
  "x-y_z",
  "Key2",
  "true",
  "null",
  "1a",
  "_u",
  "a b",
  "k",
];

Deno.test("parsePlainFrontmatter() agrees with the YAML parser on every block it accepts (generated corpus)", () => {
  const random = seededRandom(13);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const value = () => random() < 0.8 ? pick(PLAIN) : pick(VALUES);
  let accepted = 0;
  let declined = 0;
  for (let round = 0; round < 8_000; round++) {
    const lines: string[] = [];
    const used = new Set<string>();
    const count = 1 + Math.floor(random() * 5);
    for (let i = 0; i < count; i++) {
      let key = pick(KEYS);
      if (random() < 0.9) {
        while (used.has(key) && used.size < KEYS.length) key = pick(KEYS);
      }
      used.add(key);
      if (random() < 0.25) {
        lines.push(`${key}:`);
        const indent = " ".repeat(pick([1, 2, 2, 4]));
        const inner = Math.floor(random() * 3);
        for (let j = 0; j < inner; j++) {
          const deeper = random() < 0.05 ? " " : "";
          lines.push(`${indent}${deeper}${pick(KEYS)}: ${value()}`);
        }
      } else {
        const spacing = random() < 0.05 ? "  " : random() < 0.05 ? "" : " ";
        lines.push(`${key}:${spacing}${value()}`);
      }
      if (random() < 0.03) lines.push(pick(["", "# comment", "  continued", "\t", "..."]));
    }
    const eol = random() < 0.1 ? "\r\n" : "\n";
    const text = `---${eol}${lines.join(eol)}${eol}---${eol}Body${eol}`;
    if (assertAgrees(text)) accepted++;
    else declined++;
  }
  // Both sides of the corpus are exercised.
  assert.ok(accepted > 300, `accepted ${accepted}`);
  assert.ok(declined > 300, `declined ${declined}`);
});

Deno.test("parsePlainFrontmatter() takes the benchmark's SKILL.md shape, as the YAML parser reads it", () => {
  const random = seededRandom(1);
  for (let index = 0; index < 200; index++) {
    const skill = generatedSkill(index, random);
    const text = skill.files.find(([path]) => path === "SKILL.md")?.[1];
    assert.ok(text !== undefined);
    assert.ok(assertAgrees(text), `declined:\n${text.slice(0, 400)}`);
  }
});

Deno.test("parsePlainFrontmatter() leaves to the parser what it cannot be sure of", () => {
  const declined = [
    "name: a\n# comment\n",
    "name: a\nlist:\n  - x\n",
    "name: |\n  block\n",
    "name: a\nmeta:\n",
    "name: a\nname: b\n",
    "meta:\n  a: b\n    c: d\n",
    "name: 12\n",
    "name: true\n",
    "name: a #b\n",
    "",
    "name: a\n\ndescription: b\n",
  ];
  for (const yaml of declined) {
    assert.equal(parsePlainFrontmatter(yaml, 2), null, JSON.stringify(yaml));
  }
  assert.deepEqual(parsePlainFrontmatter('name: a\nmetadata:\n  v: "1.0"\n', 2), {
    frontmatter: { name: "a", metadata: { v: "1.0" } },
    keyLines: new Map([["name", 2], ["metadata", 3]]),
  });
});
