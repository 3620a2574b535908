import assert from "node:assert/strict";
import { skillBodyText } from "../../src/skills/skill_body.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { generatedSkillName, generateSkills } from "../../bench/support/skill_generator.ts";

Deno.test("generated skills are all served by the catalog with no problem", async () => {
  await using generated = await generateSkills(14);
  assert.equal(generated.files, 42);
  const catalog = await buildCatalog([{ path: generated.root, from: "argument" }], DEFAULT_CAPS);
  assert.deepEqual(catalog.problems, []);
  assert.equal(catalog.skills.length, 14);
  for (const skill of catalog.skills) {
    assert.deepEqual(skill.files.map((file) => file.path), [
      "SKILL.md",
      "references/guide.md",
      "scripts/helper.py",
    ]);
    const body = await skillBodyText(skill, DEFAULT_CAPS.maxSkillMdBytes);
    assert.ok(body.length >= 2_500, `body of "${skill.name}" is ${body.length} chars`);
  }
});

Deno.test("generated skills are the same for the same seed", async () => {
  await using first = await generateSkills(3, { seed: 7 });
  await using second = await generateSkills(3, { seed: 7 });
  const name = generatedSkillName(2);
  const read = (root: string) => Deno.readTextFile(`${root}/${name}/SKILL.md`);
  assert.equal(await read(first.root), await read(second.root));
  assert.equal(first.bytes, second.bytes);
});

Deno.test("a generated root is deleted when disposed", async () => {
  let root: string;
  {
    await using generated = await generateSkills(2);
    root = generated.root;
    assert.ok((await Deno.stat(root)).isDirectory);
  }
  await assert.rejects(() => Deno.stat(root), Deno.errors.NotFound);
});

Deno.test("generateSkills() refuses a count out of bounds", async () => {
  await assert.rejects(() => generateSkills(0), RangeError);
  await assert.rejects(() => generateSkills(1.5), /"1.5"/);
});
