import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { CORPUS_SKILLS } from "../support/corpus_skills.ts";
import { copyToTemp, CORPUS } from "../support/program.ts";

Deno.test("buildCatalog() serves all 12 skills of the Anthropic corpus", async () => {
  await using temp = await copyToTemp(CORPUS);
  const corpus = join(temp.dir, basename(CORPUS));
  const catalog = await buildCatalog([{ path: corpus, from: "argument" }], DEFAULT_CAPS);
  assert.deepEqual(catalog.skills.map((s) => s.name), CORPUS_SKILLS);

  for (const skill of catalog.skills) {
    const text = await Deno.readTextFile(join(corpus, skill.name, "SKILL.md"));
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
    [join(corpus, "claude-api", "SKILL.md"), "invalid-frontmatter", "warning"],
    // SEP-2640 clients refuse a description over 1,024 characters: served by the tools only.
    [join(corpus, "claude-api"), "extension-excluded", "warning"],
  ]);
  assert.match(catalog.problems[0]?.detail ?? "", /1068 characters/);
  assert.match(catalog.problems[1]?.detail ?? "", /rule "description"/);

  const theme = catalog.byName.get("theme-factory");
  assert.ok(theme?.files.some((f) => f.path === "theme-showcase.pdf"));
  assert.ok(theme?.files.some((f) => f.path === "themes/arctic-frost.md"));
});
