/**
 * Attack: a skill author writes terminal control sequences into a folder
 * name, a frontmatter `name` and a description, hoping the owner's terminal
 * runs them when skillgate prints the catalog (set the window title, clear
 * the screen, change colours, reorder text with bidi overrides). Every print
 * path is checked: the start-up banner, `list` (table and `--json`),
 * `validate` findings, `permissions --json`, and stderr lines.
 */

import assert from "node:assert/strict";
import { bannerText } from "../../src/cli/banner.ts";
import { jsonForTerminal } from "../../src/cli/terminal_text.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { summariseProblems } from "../../src/worker/summary.ts";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

/** Every character a terminal or a reader could be steered by, as it may appear raw. */
const RAW_ATTACKS: Record<string, string> = {
  "OSC title (ESC ] 0; ... BEL)": "\x1b]0;pwned\x07",
  "CSI clear screen (ESC [ 2 J)": "\x1b[2J",
  "colour (ESC [ 31 m)": "\x1b[31m",
  "C1 CSI U+009B": "\u009b2J",
  "C1 next line U+0085": "\u0085",
  "line separator U+2028": "\u2028",
  "paragraph separator U+2029": "\u2029",
  "bidi override U+202E": "\u202e",
  "bidi isolate U+2066": "\u2066",
  "right-to-left mark U+200F": "\u200f",
  "carriage return": "\r",
};

/** The same attacks spelled as YAML double-quoted escapes, for SKILL.md. */
const YAML_ATTACK = "\\e]0;pwned\\a \\e[2J \\e[31m \\x9b2J \\N \\L \\P \\u202e \\u2066 \\u200f \\r";

const ANY_UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function assertNoRawControl(text: string, where: string): void {
  const found = ANY_UNSAFE.exec(text);
  assert.equal(
    found,
    null,
    `${where} printed U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, "0")} raw`,
  );
}

async function attackTree() {
  return await makeTree({
    // A folder name carrying an escape sequence, and a frontmatter name carrying the rest.
    "evil\x1b]0;title\x07dir/SKILL.md":
      `---\nname: "evil\\e]0;pwned\\a\\e[2J"\ndescription: "Harmless ${YAML_ATTACK} text"\n---\n`,
    "quiet/SKILL.md": `---\nname: "quiet\\x9b\\u202e"\ndescription: "Also ${YAML_ATTACK}"\n---\n`,
    "fine/SKILL.md":
      `---\nname: fine\ndescription: "Says ${YAML_ATTACK} in its description"\n---\n`,
  });
}

Deno.test("attack: control sequences in names and descriptions never reach list's table raw", async () => {
  await using tree = await attackTree();
  const listed = await runProgram(["list", tree.path]);
  assert.equal(listed.code, 0, listed.stderr);
  assertNoRawControl(listed.stdout, "list");
  assertNoRawControl(listed.stderr, "list's stderr");
  assert.match(listed.stdout, /\\u\{1b\}\]0;pwned\\u\{7\}/);
  assert.match(listed.stdout, /\\u\{9b\}2J/);
  assert.match(listed.stdout, /\\u\{202e\}/);
});

Deno.test("attack: list --json writes C1, U+2028 and bidi overrides as \\u escapes", async () => {
  await using tree = await attackTree();
  const listed = await runProgram(["list", "--json", tree.path]);
  assert.equal(listed.code, 0, listed.stderr);
  assertNoRawControl(listed.stdout, "list --json");
  assert.match(listed.stdout, /\\u009b/);
  assert.match(listed.stdout, /\\u0085/);
  assert.match(listed.stdout, /\\u2028/);
  assert.match(listed.stdout, /\\u202e/);
  // Still exact JSON: decoding gives back the very description the author wrote.
  const answer = JSON.parse(listed.stdout);
  const fine = answer.skills.find((skill: { name: string }) => skill.name === "fine");
  assert.ok(fine, "the ordinary skill is listed");
  assert.ok(fine.description.includes("\u009b2J"));
  assert.ok(fine.description.includes("\u202e"));
  assert.ok(fine.description.includes("\x1b]0;pwned\x07"));
});

Deno.test("attack: validate findings quoting a hostile name print no raw control character", async () => {
  await using tree = await attackTree();
  const checked = await runProgram(["validate", tree.path]);
  assert.ok(checked.code === 0 || checked.code === 1, checked.stderr);
  assert.notEqual(checked.stdout, "");
  assertNoRawControl(checked.stdout, "validate");
  assertNoRawControl(checked.stderr, "validate's stderr");
});

Deno.test("attack: permissions --json over a hostile root prints no raw control character", async () => {
  await using tree = await attackTree();
  const shown = await runProgram(["permissions", "--json", tree.path]);
  assert.equal(shown.code, 0, shown.stderr);
  assertNoRawControl(shown.stdout, "permissions --json");
  assert.deepEqual(Object.keys(JSON.parse(shown.stdout)), [
    "trusted",
    "worker",
    "declarations",
    "digests",
    "reasons",
    "isolation",
    "scripts",
  ]);
});

Deno.test("attack: an error line naming a hostile root prints no raw control character", async () => {
  const missing = `/nonexistent-\x1b]0;pwned\x07-\u202e-root`;
  const listed = await runProgram(["list", missing]);
  assert.equal(listed.code, 2);
  assertNoRawControl(listed.stderr, "the root error line");
  assert.match(listed.stderr, /\\u\{1b\}\]0;pwned/);
});

Deno.test("attack: the start-up banner escapes problem details, roots and the launch line", () => {
  const hostile = Object.values(RAW_ATTACKS).join(" ");
  const config = parseCommandLine({
    args: ["serve", `/skills/${RAW_ATTACKS["OSC title (ESC ] 0; ... BEL)"]}`],
    getEnv: () => undefined,
    cwd: "/",
  });
  const summary = summariseProblems(createCatalogStore({
    roots: config.roots,
    skills: [],
    byName: new Map(),
    problems: [{
      path: `/skills/evil${hostile}`,
      reason: "name-mismatch",
      severity: "warning",
      detail: `The frontmatter name "${hostile}" differs`,
    }],
  }));
  const text = bannerText(config, { type: "ready", ...summary }, [`skillgate${hostile}`, "serve"]);
  assertNoRawControl(text, "the banner");
  assert.match(text, /name-mismatch/);
  assert.match(text, /\\u\{1b\}\]0;pwned\\u\{7\}/);
  // The problem stays on its one line: U+2028 and U+0085 cannot start a fake line.
  assert.equal(text.split("\n").filter((line) => line.includes("name-mismatch")).length, 1);
});

Deno.test("jsonForTerminal() escapes each attack character and round-trips", () => {
  for (const [what, raw] of Object.entries(RAW_ATTACKS)) {
    const value = { name: `a${raw}b`, nested: [raw] };
    const text = jsonForTerminal(value);
    assertNoRawControl(text, what);
    assert.deepEqual(JSON.parse(text), value, what);
  }
});
