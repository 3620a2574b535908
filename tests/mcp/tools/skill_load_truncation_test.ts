/**
 * Review n7 (05:04): `skill_load`'s truncation note told the model to read on
 * at `"offset": N`, N left literal. It now names the byte offset where the
 * read ended, and reading SKILL.md from there gives exactly the rest.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { loadSkill } from "../../../src/mcp/tools/skill_load.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { readSkillBody } from "../../../src/skills/skill_body.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("loadSkill() gives the real byte offset to read a cut SKILL.md on from", async () => {
  const head = "---\nname: big\ndescription: A big skill.\n---\n";
  const body = "é".repeat(400) + "\nEND\n"; // two bytes a character: cuts fall on a boundary
  await using tree = await makeTree({ "big/SKILL.md": head + body });
  const caps = { ...DEFAULT_CAPS, maxSkillMdBytes: 301 };
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  const skill = catalog.byName.get("big");
  assert.ok(skill !== undefined, JSON.stringify(catalog.problems));
  const read = await readSkillBody(skill, caps.maxSkillMdBytes);
  assert.ok(read.ok && read.truncated);
  const answer = loadSkill(skill, read);
  const match = /"offset":(\d+)/.exec(answer.truncationNote ?? "");
  assert.ok(match !== null, answer.truncationNote);
  const offset = Number(match[1]);
  const bytes = await Deno.readFile(tree.at("big/SKILL.md"));
  const decoder = new TextDecoder();
  assert.equal(decoder.decode(bytes.subarray(0, offset)), head + read.body);
  assert.equal(
    read.body + decoder.decode(bytes.subarray(offset)),
    body,
    "nothing lost, nothing twice",
  );
});
