// Review r1 (issue 13): parseFrontmatter() takes a fast path for plain blocks. Whatever it takes,
// the whole answer (values, key lines, failure and its place, and the validation findings built
// on them) must be the YAML parser's, block for block.

import assert from "node:assert/strict";
import { parseFrontmatter, parseFrontmatterWithYaml } from "../../src/skills/frontmatter.ts";
import { splitFrontmatter } from "../../src/skills/frontmatter_split.ts";
import { parsePlainFrontmatter } from "../../src/skills/frontmatter_plain.ts";
import { validateFrontmatter } from "../../src/skills/validate.ts";
import { seededRandom } from "../support/seeded_random.ts";

/** Whether the fast path takes the text's block (so the comparison means something). */
function isTakenByFastPath(text: string): boolean {
  const split = splitFrontmatter(text);
  return split.ok && parsePlainFrontmatter(split.yaml, split.yamlStartLine) !== null;
}

/** Asserts both paths give the same parse and the same validation findings. */
function assertSameAsYaml(text: string): void {
  const fast = parseFrontmatter(text);
  const reference = parseFrontmatterWithYaml(text);
  const label = JSON.stringify(text.slice(0, 300));
  assert.deepEqual(fast, reference, label);
  if (fast.ok && reference.ok) {
    // Same prototype and own keys in the same order (deepEqual alone ignores key order).
    assert.deepEqual(Object.keys(fast.frontmatter), Object.keys(reference.frontmatter), label);
    assert.equal(
      Object.getPrototypeOf(fast.frontmatter),
      Object.getPrototypeOf(reference.frontmatter),
    );
    const options = (keyLines: ReadonlyMap<string, number>) => ({
      dirName: "demo",
      skillMdPath: "/skills/demo/SKILL.md",
      keyLines,
    });
    assert.deepEqual(
      validateFrontmatter(fast.frontmatter, options(fast.keyLines)),
      validateFrontmatter(reference.frontmatter, options(reference.keyLines)),
      label,
    );
  }
}

const TRICKY_VALUES = [
  "plain words",
  '"double quoted"',
  "'single quoted'",
  '""',
  "''",
  '"a \\" b"',
  "'it''s'",
  "yes",
  "no",
  "on",
  "off",
  "Yes",
  "OFF",
  "y",
  "n",
  "null",
  "Null",
  "NULL",
  "nULL",
  "~",
  "true",
  "True",
  "TRUE",
  "tRUE",
  "false",
  "12",
  "-3",
  "1.5e3",
  "0x1f",
  "0o17",
  ".inf",
  ".NaN",
  "NaN",
  "inf",
  "2024-01-15",
  "2024-01-15T10:00:00Z",
  "a: b",
  "a:b",
  "a:",
  "a #b",
  "a#b",
  "a :b",
  "trailing space ",
  "trailing tab\t",
  "inner\ttab",
  "&anchor value",
  "*alias",
  "!tag value",
  "!!str value",
  "{a: b}",
  "[a, b]",
  "a, b, [c]",
  "| literal",
  "> folded",
  "- item",
  "? key",
  "@at",
  "`tick",
  "%pct",
  "Ünïcödé",
  "emoji 🎉",
  "nbsp\u00a0inside",
  "ends nbsp\u00a0",
  "ends ideographic space\u3000",
  "zero\u200bwidth",
  "line\u2028separator",
  "nel\u0085char",
  "bom\ufeffinside",
  "nonchar\ufffe",
  "x".repeat(5_000),
  '"' + "x".repeat(3_000) + '"',
];

const TRICKY_KEYS = [
  "name",
  "description",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__proto__",
  "prototype",
  "true",
  "null",
  "Yes",
  "on",
  "1a",
  "a b",
  "a-",
  "x_y-z",
  "k".repeat(1_023),
  "k".repeat(1_024),
  "k".repeat(1_025),
  "k".repeat(2_000),
];

Deno.test("parseFrontmatter() gives what the YAML parser gives for tricky values", () => {
  let taken = 0;
  for (const value of TRICKY_VALUES) {
    for (const eol of ["\n", "\r\n"]) {
      const text = `---${eol}name: demo${eol}description: ${value}${eol}---${eol}Body${eol}`;
      if (isTakenByFastPath(text)) taken++;
      assertSameAsYaml(text);
      assertSameAsYaml(`\ufeff${text}`);
      assertSameAsYaml(`---${eol}metadata:${eol}  k: ${value}${eol}---${eol}`);
    }
  }
  assert.ok(taken > 20, `the fast path took ${taken}`);
});

Deno.test("parseFrontmatter() gives what the YAML parser gives for tricky keys, top-level and nested", () => {
  let taken = 0;
  for (const key of TRICKY_KEYS) {
    const top = `---\n${key}: v\ndescription: d\n---\n`;
    const nested = `---\ndescription: d\nmetadata:\n  ${key}: v\n---\n`;
    for (const text of [top, nested]) {
      if (isTakenByFastPath(text)) taken++;
      assertSameAsYaml(text);
    }
  }
  assert.ok(taken > 10, `the fast path took ${taken}`);
});

Deno.test("parseFrontmatter() gives what the YAML parser gives for odd block shapes", () => {
  const blocks = [
    "name: a\nname: b\n",
    "name: a\nmetadata:\n  k: v\n  k: w\n",
    "metadata:\n",
    "metadata:\nname: a\n",
    "metadata:\n  a: b\n   c: d\n",
    "metadata:\n   a: b\n  c: d\n",
    "metadata:\n\ta: b\n",
    "metadata:\n  a:\n    b: c\n",
    "metadata: {a: b}\n",
    "metadata: &m\n  a: b\nother: *m\n",
    "tags:\n  - a\n  - b\n",
    "description: |\n  line one\n  line two\n",
    "description: >\n  folded\n  text\n",
    "description: first\n  continued\n",
    "description: a\n\nname: b\n",
    "description: a\n# comment\n",
    "description: a # comment\n",
    "description: a\n...\n",
    "%YAML 1.2\ndescription: a\n",
    " description: a\n",
    "description : a\n",
    "description:a\n",
    "description:  a\n",
    "description: a\r\r\n",
    "description: a\rname: b\n",
    "",
    "\n",
    "? description\n: a\n",
    "description: !!str a\n",
    "description: a\nname: b",
  ];
  for (const block of blocks) {
    assertSameAsYaml(`---\n${block}---\nBody\n`);
  }
});

Deno.test("parseFrontmatter() gives what the YAML parser gives on a seeded character-level corpus", () => {
  const random = seededRandom(2640);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const pieces = [
    ..."abcdxyz  ",
    ": ",
    ":",
    " #",
    "#",
    "'",
    '"',
    "\\",
    "- ",
    "&",
    "*",
    "!",
    "{",
    "[",
    ",",
    "~",
    ".",
    "0",
    "\u00a0",
    "\u3000",
    "é",
    "🎉",
    "\t",
    "\r",
    "true",
    "null",
  ];
  const keys = ["name", "description", "metadata", "license", "k-1", "y", "On", "nULL", "toString"];
  const text = (length: number) => Array.from({ length }, () => pick(pieces)).join("");
  let taken = 0;
  for (let round = 0; round < 6_000; round++) {
    const lines: string[] = [];
    for (let count = 1 + Math.floor(random() * 4); count > 0; count--) {
      const key = random() < 0.9 ? pick(keys) : text(2);
      if (random() < 0.2) {
        lines.push(`${key}:`);
        const indent = " ".repeat(1 + Math.floor(random() * 3));
        lines.push(`${indent}${pick(keys)}: ${pick(["a", "b"])}${text(Math.floor(random() * 4))}`);
      } else {
        const quote = random() < 0.7 ? "" : pick(["'", '"']);
        const close = quote !== "" && random() < 0.8 ? quote : "";
        lines.push(`${key}: ${quote}${pick(["a", "Q"])}${text(Math.floor(random() * 6))}${close}`);
      }
    }
    const eol = random() < 0.2 ? "\r\n" : "\n";
    const sample = `---${eol}${lines.join(eol)}${eol}---${eol}Body`;
    if (isTakenByFastPath(sample)) taken++;
    assertSameAsYaml(sample);
  }
  assert.ok(taken > 1_000, `the fast path took ${taken}`);
});
