import assert from "node:assert/strict";
import { parseFrontmatter, splitFrontmatter } from "../../src/skills/frontmatter.ts";
import { MAX_FRONTMATTER_BYTES } from "../../src/caps.ts";

function parsed(text: string) {
  const result = parseFrontmatter(text);
  if (!result.ok) throw new Error(`expected success, got: ${result.detail}`);
  return result;
}

function failed(text: string) {
  const result = parseFrontmatter(text);
  if (result.ok) throw new Error("expected a failure");
  return result;
}

Deno.test("parseFrontmatter() reads a plain block and keeps the body verbatim", () => {
  const result = parsed("---\nname: a\ndescription: Does a\n---\n# Title\n\ntext\n");
  assert.deepEqual(result.frontmatter, { name: "a", description: "Does a" });
  assert.deepEqual(result.body, "# Title\n\ntext\n");
  assert.deepEqual(result.bodyStartLine, 5);
  assert.deepEqual(result.keyLines.get("description"), 3);
});

Deno.test("parseFrontmatter() strips a leading UTF-8 BOM", () => {
  const result = parsed("\uFEFF---\nname: a\ndescription: d\n---\nbody");
  assert.deepEqual(result.frontmatter, { name: "a", description: "d" });
  assert.deepEqual(result.body, "body");
});

Deno.test("parseFrontmatter() accepts CRLF and keeps CRLF in the body", () => {
  const result = parsed("---\r\nname: a\r\ndescription: d\r\n---\r\nline 1\r\nline 2\r\n");
  assert.deepEqual(result.frontmatter, { name: "a", description: "d" });
  assert.deepEqual(result.body, "line 1\r\nline 2\r\n");
});

Deno.test("parseFrontmatter() allows trailing blanks on both '---' lines", () => {
  const result = parsed("--- \t\ndescription: d\n---  \nbody\n");
  assert.deepEqual(result.frontmatter, { description: "d" });
  assert.deepEqual(result.body, "body\n");
});

Deno.test("parseFrontmatter() keeps later '---' lines in the body", () => {
  const result = parsed("---\ndescription: d\n---\nabove\n---\nbelow\n---\n");
  assert.deepEqual(result.body, "above\n---\nbelow\n---\n");
});

Deno.test("parseFrontmatter() does not close on '---' inside a value or indented", () => {
  const result = parsed(
    "---\ndescription: 'a --- b'\nnote: |\n  ---\n  kept\ntail: x ---\n---\nbody",
  );
  assert.deepEqual(result.frontmatter, {
    description: "a --- b",
    note: "---\nkept\n",
    tail: "x ---",
  });
  assert.deepEqual(result.body, "body");
});

Deno.test("parseFrontmatter() gives an empty body when the closing line ends the file", () => {
  assert.deepEqual(parsed("---\ndescription: d\n---").body, "");
});

Deno.test("parseFrontmatter() handles block scalars with chomping and indentation indicators", () => {
  const text = [
    "---",
    "keep: |+",
    "  a",
    "",
    "strip: |-",
    "  b",
    "  c",
    "folded: >",
    "  one",
    "  two",
    "",
    "  three",
    "folded_keep: >+",
    "  x",
    "",
    "indented: |2",
    "    four",
    "  five",
    "---",
    "",
  ].join("\n");
  assert.deepEqual(parsed(text).frontmatter, {
    keep: "a\n\n",
    strip: "b\nc",
    folded: "one two\nthree\n",
    folded_keep: "x\n\n",
    indented: "  four\nfive\n",
  });
});

Deno.test("parseFrontmatter() reads flow sequences, quoted colons, numbers and nested maps", () => {
  const text = [
    "---",
    "name: 123",
    "tags: [a, 'b c', 3]",
    'description: "Use when: the user asks"',
    "plain: a: b",
    "ok: true",
    "ratio: 1.5",
    "metadata:",
    "  author: me",
    "  nested:",
    "    deep: [1, {x: y}]",
    "---",
  ].join("\n");
  const result = parseFrontmatter(text);
  // `plain: a: b` is not valid YAML; check the rest without it.
  assert.ok(!result.ok);
  const fm = parsed(text.replace("plain: a: b\n", "")).frontmatter;
  assert.deepEqual(fm, {
    name: 123,
    tags: ["a", "b c", 3],
    description: "Use when: the user asks",
    ok: true,
    ratio: 1.5,
    metadata: { author: "me", nested: { deep: [1, { x: "y" }] } },
  });
});

Deno.test("parseFrontmatter() keeps dates and YAML 1.1 booleans as strings (core schema)", () => {
  const fm = parsed("---\ndate: 2024-01-02\nstamp: 2001-12-14t21:59:43.10-05:00\nyes: yes\n---\n")
    .frontmatter;
  assert.deepEqual(fm, { date: "2024-01-02", stamp: "2001-12-14t21:59:43.10-05:00", yes: "yes" });
});

Deno.test("parseFrontmatter() keeps a __proto__ key as plain data", () => {
  const fm = parsed("---\n__proto__:\n  polluted: true\ndescription: d\n---\n").frontmatter;
  assert.ok(Object.hasOwn(fm, "__proto__"));
  assert.deepEqual(Object.getPrototypeOf(fm), Object.prototype);
  assert.deepEqual(({} as Record<string, unknown>)["polluted"], undefined);
});

Deno.test("parseFrontmatter() refuses YAML aliases", () => {
  const result = failed("---\nbase: &b hello\ndescription: *b\n---\n");
  assert.match(result.detail, /anchor/);
  assert.deepEqual(result.line, 2);
  const alias = failed("---\ndescription: *b\n---\n");
  assert.match(alias.detail, /alias|anchor/);
});

Deno.test("parseFrontmatter() refuses an anchor even without an alias", () => {
  const result = failed("---\ndescription: d\nmeta: &m\n  a: 1\n---\n");
  assert.match(result.detail, /anchor "&m"/);
  assert.deepEqual(result.line, 3);
});

Deno.test("parseFrontmatter() refuses merge keys' aliases and tags outside the core schema", () => {
  assert.match(failed("---\na: &x {k: 1}\nb:\n  <<: *x\n---\n").detail, /anchor/);
  const binary = failed("---\ndescription: d\nblob: !!binary aGk=\n---\n");
  assert.match(binary.detail, /binary/);
  assert.deepEqual(binary.line, 3);
  assert.match(failed("---\ndescription: !custom d\n---\n").detail, /custom/);
});

Deno.test("parseFrontmatter() refuses numbers JSON cannot hold", () => {
  const result = failed("---\ndescription: d\nlimit: .inf\n---\n");
  assert.match(result.detail, /"\.inf"/);
  assert.deepEqual(result.line, 3);
});

Deno.test("parseFrontmatter() refuses keys that are lists or maps", () => {
  assert.match(failed("---\n? [a, b]\n: c\n---\n").detail, /key/);
});

Deno.test("parseFrontmatter() refuses keys that are not text (1:, true:, ~:), at any depth, and says to quote them", () => {
  const table: [string, RegExp, number][] = [
    ["---\nname: numkey\ndescription: d\n1: numkey\n---\n", /"1", which YAML reads as a number/, 4],
    ["---\nname: b\ndescription: d\ntrue: x\n---\n", /"true", which YAML reads as a boolean/, 4],
    ["---\nname: n\ndescription: d\n~: nullkey\n---\n", /"~", which YAML reads as null/, 4],
    ["---\nname: m\ndescription: d\nmetadata:\n  2: two\n---\n", /"2", which YAML reads/, 5],
  ];
  for (const [text, detail, line] of table) {
    const result = failed(text);
    assert.match(result.detail, detail, text);
    assert.match(result.detail, /quote it/);
    assert.equal(result.line, line, text);
  }
  // Quoted, they are text and parse.
  assert.deepEqual(
    parsed('---\nname: q\ndescription: d\n"1": one\n"~": tilde\n---\n').frontmatter,
    { name: "q", description: "d", "1": "one", "~": "tilde" },
  );
});

Deno.test("parseFrontmatter() refuses duplicate keys with their line", () => {
  const result = failed("---\ndescription: a\nname: x\ndescription: b\n---\n");
  assert.match(result.detail, /unique/);
  assert.deepEqual(result.line, 4);
  assert.deepEqual(result.column, 1);
});

Deno.test("parseFrontmatter() parse failure has line and column in the file", () => {
  const result = failed('---\nname: a\ndescription: "unterminated\n---\nbody\n');
  assert.match(result.detail, /not valid YAML/);
  assert.deepEqual(typeof result.line, "number");
  assert.deepEqual(typeof result.column, "number");
  const indent = failed("---\nname: a\nmeta:\n\tkey: 1\n---\n");
  assert.deepEqual(indent.line, 4);
  assert.deepEqual(indent.column, 1);
  const flow = failed("---\ndescription: d\ntags: [a, b\n---\n");
  assert.ok((flow.line ?? 0) >= 3);
});

Deno.test("parseFrontmatter() turns an empty block or only comments into {}", () => {
  assert.deepEqual(parsed("---\n---\nbody").frontmatter, {});
  assert.deepEqual(parsed("---\n# just a comment\n\n---\nbody").frontmatter, {});
});

Deno.test("parseFrontmatter() refuses a top level that is not a mapping", () => {
  assert.match(failed("---\n- a\n- b\n---\n").detail, /mapping.*a list/);
  assert.match(failed("---\njust text\n---\n").detail, /mapping.*"just text"/);
  assert.match(failed("---\n~\n---\n").detail, /mapping/);
});

Deno.test("parseFrontmatter() refuses a file that does not open with '---'", () => {
  const result = failed("# Title\n---\ndescription: d\n---\n");
  assert.deepEqual(result.line, 1);
  assert.match(result.detail, /does not start with a '---' line/);
  assert.ok(!parseFrontmatter("  ---\ndescription: d\n---\n").ok);
  assert.ok(!parseFrontmatter("").ok);
});

Deno.test("parseFrontmatter() refuses a block that is never closed", () => {
  assert.match(failed("---\ndescription: d\n ---\nbody").detail, /never closed/);
  assert.match(failed("---").detail, /never closed/);
});

Deno.test("parseFrontmatter() refuses frontmatter over MAX_FRONTMATTER_BYTES", () => {
  const big = "x".repeat(MAX_FRONTMATTER_BYTES);
  assert.match(failed(`---\ndescription: ${big}\n---\n`).detail, /longer than 65536 bytes/);
  // Multi-byte characters count in UTF-8 bytes, not characters.
  const wide = "é".repeat(MAX_FRONTMATTER_BYTES / 2);
  assert.match(failed(`---\nd: ${wide}\n---\n`).detail, /longer than/);
  assert.ok(parseFrontmatter(`---\nd: ${"x".repeat(1000)}\n---\n`).ok);
});

Deno.test("splitFrontmatter() says a block is too long, not never closed, when its last line runs past MAX_FRONTMATTER_BYTES unterminated", () => {
  const split = splitFrontmatter(
    `---\nname: a\ndescription: "${"x".repeat(MAX_FRONTMATTER_BYTES)}`,
  );
  assert.ok(!split.ok);
  assert.match(split.detail, /^The frontmatter is longer than 65536 bytes/);
});

Deno.test("splitFrontmatter() on a read cut at the cap: a block that does not close within it is reported as longer than the read (the cap and --max-skill-md-bytes named), never as 'never closed'", () => {
  // Review s15 L3: a 3 MB description closed beyond the 262,144-byte read was "never closed".
  const cut = `---\nname: a\ndescription: "${"x".repeat(300_000)}`.slice(0, 262_144);
  const long = splitFrontmatter(cut, { readCapBytes: 262_144 });
  assert.ok(!long.ok);
  assert.doesNotMatch(long.detail, /never closed/);
  assert.match(
    long.detail,
    /^The frontmatter does not close within the first 262144 bytes of SKILL\.md, which is all that is read \(--max-skill-md-bytes\), and is longer than 65536 bytes already\. Move long text into the body or a reference file$/,
  );
  // Under a lower cap, the block may be within MAX_FRONTMATTER_BYTES: raising the cap helps.
  const lines = `---\nname: a\n${"k: v\n".repeat(3000)}`.slice(0, 4096);
  const short = splitFrontmatter(lines, { readCapBytes: 4096 });
  assert.ok(!short.ok);
  assert.match(
    short.detail,
    /^The frontmatter does not close within the first 4096 bytes of SKILL\.md.*\. Move long text into the body or a reference file, or raise --max-skill-md-bytes$/,
  );
  // A block closed within the cut read is found as before; a whole file still "never closed".
  assert.ok(splitFrontmatter("---\na: 1\n---\nbody cut her", { readCapBytes: 4096 }).ok);
  assert.match(
    (splitFrontmatter("---\na: 1\n") as { detail: string }).detail,
    /never closed/,
  );
  // A block past MAX_FRONTMATTER_BYTES before the cut: too long, wherever it closes.
  const many = `---\n${"k: v\n".repeat(20_000)}`.slice(0, 262_144);
  assert.match(
    (splitFrontmatter(many, { readCapBytes: 262_144 }) as { detail: string }).detail,
    /^The frontmatter is longer than 65536 bytes/,
  );
});

Deno.test("splitFrontmatter() reports where the YAML and the body start", () => {
  const split = splitFrontmatter("---\na: 1\nb: 2\n---\nbody\n");
  assert.ok(split.ok);
  assert.deepEqual(split.yaml, "a: 1\nb: 2\n");
  assert.deepEqual(split.yamlStartLine, 2);
  assert.deepEqual(split.bodyStartLine, 5);
  assert.deepEqual(split.body, "body\n");
});

Deno.test("attack: parseFrontmatter() names a nesting bomb as too deeply nested, not a raw engine error", () => {
  const depth = 30_000;
  const result = parseFrontmatter(`---\nx: ${"[".repeat(depth)}${"]".repeat(depth)}\n---\n`);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.match(result.detail, /nested too deeply/);
  assert.doesNotMatch(result.detail, /Maximum call stack/);
});
