// Issue 13: a cold catalog build whose every SKILL.md has a plain frontmatter block (the fast
// path's subset) never loads the YAML parser; a block off that path still gets it, on first use.
// Each build runs in its own process: whether a module was loaded is per process.

import assert from "node:assert/strict";
import { frontmatterBeforeParser } from "../../src/skills/frontmatter_quick.ts";
import { parseFrontmatter, parseFrontmatterWithYaml } from "../../src/skills/frontmatter.ts";
import { makeTree, skillMd } from "./_tree.ts";

const PROBE = new URL("./_parser_load_probe.ts", import.meta.url).pathname;

interface ProbeOutput {
  readonly skills: readonly { name: string; frontmatter: Record<string, unknown> }[];
  readonly problems: readonly string[];
  readonly isParserLoaded: boolean;
}

async function buildInOwnProcess(root: string): Promise<ProbeOutput> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--cached-only", `--allow-read`, "--allow-env", PROBE, root],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)) as ProbeOutput;
}

const PLAIN_WITH_METADATA = "---\nname: tidy\ndescription: Tidies things\nlicense: MIT\n" +
  'metadata:\n  author: someone\n  version: "1.2"\n---\n# Tidy\n';

Deno.test("a cold catalog build of plain frontmatter blocks does not load the YAML parser", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "tidy/SKILL.md": PLAIN_WITH_METADATA,
  });
  const built = await buildInOwnProcess(tree.path);
  assert.equal(built.isParserLoaded, false);
  assert.deepEqual(built.skills.map((skill) => skill.name), ["alpha", "tidy"]);
  assert.deepEqual(built.skills[1]?.frontmatter, {
    name: "tidy",
    description: "Tidies things",
    license: "MIT",
    metadata: { author: "someone", version: "1.2" },
  });
});

Deno.test("a frontmatter block off the fast path loads the YAML parser and is parsed by it", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "listed/SKILL.md": "---\nname: listed\ndescription: Has a list\nmetadata:\n  tags:\n" +
      "    - one\n    - two\n---\nBody\n",
  });
  const built = await buildInOwnProcess(tree.path);
  assert.equal(built.isParserLoaded, true);
  assert.deepEqual(built.skills.find((skill) => skill.name === "listed")?.frontmatter, {
    name: "listed",
    description: "Has a list",
    metadata: { tags: ["one", "two"] },
  });
});

Deno.test("frontmatterBeforeParser() decides exactly what parseFrontmatter() and the YAML parser give, or defers", () => {
  const cases: readonly { text: string; isDecided: boolean }[] = [
    { text: PLAIN_WITH_METADATA, isDecided: true },
    { text: skillMd("alpha"), isDecided: true },
    { text: "no frontmatter at all\n", isDecided: true },
    { text: "---\nname: open\n", isDecided: true },
    { text: "---\nname: a\nlist:\n  - x\n---\n", isDecided: false },
    { text: "---\nname: a # comment\n---\n", isDecided: false },
    { text: "---\nname: yes\n---\n", isDecided: true },
    { text: "---\nname: 12\n---\n", isDecided: false },
  ];
  for (const { text, isDecided } of cases) {
    const quick = frontmatterBeforeParser(text);
    assert.equal(quick.decided !== null, isDecided, JSON.stringify(text));
    if (quick.decided !== null) {
      assert.deepEqual(quick.decided, parseFrontmatter(text), JSON.stringify(text));
      assert.deepEqual(quick.decided, parseFrontmatterWithYaml(text), JSON.stringify(text));
    }
  }
});
