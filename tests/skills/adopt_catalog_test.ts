import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { adoptCatalog } from "../../src/skills/adopt_catalog.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { makeTree, skillMd } from "./_tree.ts";

Deno.test("adoptCatalog() turns a structured clone back into a frozen snapshot equal to the original", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First") + "\nmetadata:\n  owner: team\n",
    "alpha/references/guide.md": "guide\n",
    "beta/SKILL.md": "---\nname: other\ndescription: Mismatched\n---\nBody\n",
    "broken/SKILL.md": "---\ndescription: [unclosed\n---\n",
  });
  const built = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  const received = structuredClone(built);
  assert.equal(Object.isFrozen(received.skills[0]), false, "a clone is not frozen");
  const adopted = adoptCatalog(received);
  assert.deepEqual(adopted, built);
  assert.ok(adopted.problems.length > 0);
  const isDeeplyFrozen = (value: unknown): boolean =>
    value === null || typeof value !== "object" ||
    (Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen));
  assert.ok(isDeeplyFrozen(adopted.skills));
  assert.ok(isDeeplyFrozen(adopted.problems));
  assert.ok(isDeeplyFrozen(adopted.roots));
  assert.ok(Object.isFrozen(adopted));
  for (const skill of adopted.skills) assert.equal(adopted.byName.get(skill.name), skill);
  assert.deepEqual([...adopted.byName.keys()], adopted.skills.map((skill) => skill.name));
});
