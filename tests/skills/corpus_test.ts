import assert from "node:assert/strict";
import { skillBodyText } from "../../src/skills/skill_body.ts";
import { join } from "node:path";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { copyCorpus, corpora } from "../support/corpora.ts";
import { frontmatterOf } from "../support/frontmatter_oracle.ts";

for (const corpus of corpora()) {
  const { facts } = corpus;

  Deno.test(`buildCatalog() serves every skill of the ${corpus.label} corpus`, async () => {
    await using copy = await copyCorpus(corpus);
    const catalog = await buildCatalog([{ path: copy.root, from: "argument" }], DEFAULT_CAPS);
    assert.deepEqual(catalog.skills.map((s) => s.name), corpus.names);

    for (const skill of catalog.skills) {
      assert.equal(skill.dir, copy.skill(skill.name), "found in its own folder, groups included");
      const text = await Deno.readTextFile(join(skill.dir, "SKILL.md"));
      const oracle = frontmatterOf(text);
      assert.equal(skill.description, oracle["description"], skill.name);
      assert.deepEqual(skill.frontmatter, oracle, skill.name);
      assert.equal(skill.frontmatter["name"], skill.name);
      const body = await skillBodyText(skill, DEFAULT_CAPS.maxSkillMdBytes);
      assert.ok(body.length > 0 && !body.startsWith("---"), skill.name);
      assert.equal(skill.bodyTruncated, false);
    }

    const overLong = catalog.byName.get(facts.overLong.skill);
    assert.ok(overLong?.description.startsWith(facts.overLong.startsWith));
    assert.equal([...(overLong?.description ?? "")].length, facts.overLong.chars);
    // The skills extension may leave out only the over-long skill (SEP-2640's 1,024
    // characters); every other problem is exactly the corpus's known ones.
    const excluded = catalog.problems.filter((p) => p.reason === "extension-excluded");
    for (const problem of excluded) {
      assert.equal(problem.path, copy.skill(facts.overLong.skill), problem.detail);
    }
    const problems = catalog.problems.filter((p) => p.reason !== "extension-excluded");
    assert.deepEqual(
      problems.map((p) => [p.path, p.reason, p.severity]),
      facts.problems.map((p) => [join(copy.root, p.path), p.reason, p.severity]),
    );
    facts.problems.forEach((expected, index) => {
      assert.match(problems[index]?.detail ?? "", expected.detail);
    });

    const rich = catalog.byName.get(facts.rich.skill);
    assert.ok(rich?.files.some((f) => f.path === facts.rich.pdf));
    for (const document of facts.rich.documents) {
      assert.ok(rich?.files.some((f) => f.path === document), document);
    }
    for (const binary of facts.binaries) {
      const files = catalog.byName.get(binary.skill)?.files ?? [];
      const listed = files.find((f) => f.path === binary.path);
      const info = await Deno.stat(join(copy.skill(binary.skill), binary.path));
      assert.equal(listed?.size, info.size, `${binary.skill}/${binary.path}`);
    }
  });
}
