import assert from "node:assert/strict";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { makeTree } from "./_tree.ts";

const CORPUS = new URL("../../../shared/corpus/anthropic-skills", import.meta.url).pathname;

const EXPECTED = [
  "algorithmic-art",
  "brand-guidelines",
  "canvas-design",
  "claude-api",
  "frontend-design",
  "internal-comms",
  "mcp-builder",
  "skill-creator",
  "slack-gif-creator",
  "theme-factory",
  "web-artifacts-builder",
  "webapp-testing",
];

async function copyCorpus(to: string): Promise<void> {
  const { success, stderr } = await new Deno.Command("cp", {
    args: ["-r", CORPUS, to],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(success, new TextDecoder().decode(stderr));
}

Deno.test("buildCatalog() serves all 12 skills of the Anthropic corpus", async () => {
  await using tree = await makeTree();
  await copyCorpus(tree.at("corpus"));
  const catalog = await buildCatalog(
    [{ path: tree.at("corpus"), from: "argument" }],
    DEFAULT_CAPS,
  );
  assert.deepEqual(catalog.skills.map((s) => s.name), EXPECTED);

  for (const skill of catalog.skills) {
    const text = await Deno.readTextFile(tree.at(`corpus/${skill.name}/SKILL.md`));
    const descriptionLine = text.split("\n").find((l) => l.startsWith("description:")) ?? "";
    const inline = descriptionLine.slice("description:".length).trim();
    if (inline !== "|-") assert.equal(skill.description, inline, skill.name);
    assert.equal(skill.frontmatter["name"], skill.name);
    assert.ok(skill.body.length > 0 && !skill.body.startsWith("---"), skill.name);
    assert.equal(skill.bodyTruncated, false);
  }

  const claudeApi = catalog.byName.get("claude-api");
  assert.ok(claudeApi?.description.startsWith("Reference for the Claude API / Anthropic SDK"));
  assert.equal([...(claudeApi?.description ?? "")].length, 1068);
  assert.deepEqual(catalog.problems.map((p) => [p.path, p.reason, p.severity]), [
    [tree.at("corpus/claude-api/SKILL.md"), "invalid-frontmatter", "warning"],
  ]);
  assert.match(catalog.problems[0]?.detail ?? "", /1068 characters/);

  const theme = catalog.byName.get("theme-factory");
  assert.ok(theme?.files.some((f) => f.path === "theme-showcase.pdf"));
  assert.ok(theme?.files.some((f) => f.path === "themes/arctic-frost.md"));
});
