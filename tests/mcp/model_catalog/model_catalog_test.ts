import assert from "node:assert/strict";
import {
  CATALOG_BUDGET_BYTES,
  clipDescription,
  escapeXml,
  MAX_CATALOG_DESCRIPTION_CHARS,
  renderSkillCatalog,
  serverInstructions,
} from "../../../src/mcp/model_catalog/model_catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { testCatalog } from "../resources/_catalog.ts";
import { connectInMemory, testConfig } from "../skills_extension/_connect.ts";

const utf8 = (text: string) => new TextEncoder().encode(text).length;

Deno.test("escapeXml() escapes the five XML specials and nothing else", () => {
  assert.equal(escapeXml(`a<b>&"c'd é`), "a&lt;b&gt;&amp;&quot;c&apos;d é");
});

Deno.test("renderSkillCatalog() lists name, escaped description and SKILL.md URI per skill", () => {
  const catalog = testCatalog([
    { name: "alpha", description: 'Use <when> & "why"' },
    { name: "beta" },
  ]);
  assert.equal(
    renderSkillCatalog(catalog),
    "<available_skills>\n" +
      "<skill><name>alpha</name><description>Use &lt;when&gt; &amp; &quot;why&quot;</description>" +
      "<uri>skill://alpha/SKILL.md</uri></skill>\n" +
      "<skill><name>beta</name><description>Does beta things</description>" +
      "<uri>skill://beta/SKILL.md</uri></skill>\n" +
      "</available_skills>",
  );
});

Deno.test("renderSkillCatalog() keeps disable-model-invocation skills out of the model's catalog", () => {
  const catalog = testCatalog([
    { name: "hidden", frontmatter: { "disable-model-invocation": true } },
    { name: "shown", frontmatter: { "disable-model-invocation": false } },
  ]);
  const text = renderSkillCatalog(catalog);
  assert.ok(!text.includes("hidden"));
  assert.ok(text.includes("<name>shown</name>"));
});

Deno.test("renderSkillCatalog() stays within its byte budget and says how many more exist", () => {
  const skills = Array.from({ length: 400 }, (_, i) => ({
    name: `skill-${String(i).padStart(3, "0")}`,
    description: "é".repeat(60) + " <tag> & more",
  }));
  const text = renderSkillCatalog(testCatalog(skills));
  assert.ok(utf8(text) <= CATALOG_BUDGET_BYTES, `${utf8(text)} bytes`);
  const shown = text.match(/<skill>/g)?.length ?? 0;
  assert.ok(shown > 10 && shown < 400);
  const more =
    /<more_skills count="(\d+)" total="400">[^<]*\(400 in all\)[^<]*skill_search[^<]*<\/more_skills>/
      .exec(text);
  assert.ok(more, text.slice(-400));
  assert.equal(Number(more[1]), 400 - shown);
  for (const budgetBytes of [512, 1000, 4096]) {
    const small = renderSkillCatalog(testCatalog(skills), { budgetBytes });
    assert.ok(utf8(small) <= budgetBytes, `${budgetBytes}: ${utf8(small)}`);
  }
  assert.throws(() => renderSkillCatalog(testCatalog(skills), { budgetBytes: 100 }), RangeError);
});

Deno.test("renderSkillCatalog() fits the last skill exactly without a needless overflow note", () => {
  const catalog = testCatalog(
    Array.from({ length: 10 }, (_, i) => ({ name: `s${i}`, description: "d".repeat(100) })),
  );
  const full = renderSkillCatalog(catalog);
  assert.ok(utf8(full) > 512);
  assert.equal(renderSkillCatalog(catalog, { budgetBytes: utf8(full) }), full);
  const cut = renderSkillCatalog(catalog, { budgetBytes: utf8(full) - 1 });
  assert.match(cut, /<more_skills count="\d+" total="10">/);
  assert.ok(utf8(cut) <= utf8(full) - 1);
});

Deno.test("serverInstructions() carries the catalog in exactly one channel", () => {
  const catalog = testCatalog([{ name: "alpha" }]);
  const inInstructions = serverInstructions(testConfig(), catalog);
  assert.match(inInstructions, /<available_skills>[\s\S]*<name>alpha<\/name>/);
  assert.match(inInstructions, /skill_list always shows the current catalog/);
  const toolMode = serverInstructions(testConfig(["--catalog=tool-description"]), catalog);
  assert.ok(!toolMode.includes("<available_skills>"));
  assert.match(toolMode, /skill_load's description/);
  const never = serverInstructions(
    testConfig(["--catalog=tool-description", "--tools=never"]),
    catalog,
  );
  assert.match(never, /<available_skills>/, "with skill_load never offered, the catalog stays");
});

/** The reviewer's case: a 17,000-character description before two ordinary skills. */
function catalogWithOneHugeDescription() {
  return testCatalog([
    { name: "aaa-huge", description: "x".repeat(17_000) },
    { name: "bbb-plain" },
    { name: "ccc-plain" },
  ]);
}

function shownNames(text: string): string[] {
  return [...text.matchAll(/<name>([^<]*)<\/name>/g)].map((match) => match[1] ?? "");
}

Deno.test("one skill with a 17,000-character description never hides the others (instructions)", () => {
  const instructions = serverInstructions(testConfig(), catalogWithOneHugeDescription());
  assert.deepEqual(shownNames(instructions), ["aaa-huge", "bbb-plain", "ccc-plain"]);
  assert.ok(!instructions.includes("<more_skills"), "every skill fits once descriptions are cut");
  const huge = /<name>aaa-huge<\/name><description>([^<]*)<\/description>/.exec(instructions);
  assert.ok(huge);
  assert.equal(Array.from(huge[1] ?? "").length, MAX_CATALOG_DESCRIPTION_CHARS);
  assert.ok(huge[1]?.endsWith("…"));
});

Deno.test("one skill with a 17,000-character description never hides the others (tool description)", async () => {
  const store = createCatalogStore(catalogWithOneHugeDescription());
  await using session = await connectInMemory(store, { flags: ["--catalog=tool-description"] });
  const { tools } = await session.client.listTools();
  const load = tools.find((tool) => tool.name === "skill_load");
  assert.ok(load?.description);
  assert.deepEqual(shownNames(load.description), ["aaa-huge", "bbb-plain", "ccc-plain"]);
  assert.ok(!load.description.includes("<more_skills"));
  assert.ok(!(session.client.getInstructions() ?? "").includes("<available_skills>"));
});

Deno.test("renderSkillCatalog() skips an entry that does not fit and keeps adding later ones", () => {
  const catalog = testCatalog([
    { name: "a-first" },
    { name: "b-wide", description: "w".repeat(900) },
    { name: "c-third" },
    { name: "d-fourth" },
  ]);
  const text = renderSkillCatalog(catalog, { budgetBytes: 700 });
  assert.ok(utf8(text) <= 700, `${utf8(text)} bytes`);
  assert.deepEqual(shownNames(text), ["a-first", "c-third", "d-fourth"]);
  assert.match(text, /<more_skills count="1" total="4">1 more skill is served[^<]*skill_search/);
  assert.ok(text.trimEnd().endsWith("</more_skills>\n</available_skills>"));
});

Deno.test("clipDescription() cuts at 1,024 characters on a character boundary with an ellipsis", () => {
  assert.equal(clipDescription("short"), "short");
  const exact = "é".repeat(MAX_CATALOG_DESCRIPTION_CHARS);
  assert.equal(clipDescription(exact), exact, "1,024 characters is within the limit");
  const emoji = "😀".repeat(2_000); // two UTF-16 code units per character
  const cut = clipDescription(emoji);
  const chars = Array.from(cut);
  assert.equal(chars.length, MAX_CATALOG_DESCRIPTION_CHARS);
  assert.equal(chars.at(-1), "…");
  assert.ok(chars.slice(0, -1).every((char) => char === "😀"), "no surrogate pair is split");
  assert.equal(clipDescription("abcdef", 4), "abc…");
});

Deno.test("escapeXml() writes control characters and bidi marks visibly, never raw", () => {
  const escaped = escapeXml("a\u0007b\u202Ec\u200Fd\u2028e\tf\ng<&>");
  assert.equal(escaped, "a\\u0007b\\u202Ec\\u200Fd\\u2028e\tf\ng&lt;&amp;&gt;");
});
