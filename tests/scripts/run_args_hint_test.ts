/**
 * Review n7 (04:58): a skill_run argument holding NUL was refused with the
 * size caps' hint ("Send fewer or shorter arguments"). Each refusal of the
 * arguments now names its own fix.
 */

import assert from "node:assert/strict";
import { prepareRun } from "../../src/scripts/prepare_run.ts";
import type { ScriptPlan } from "../../src/scripts/plan.ts";
import type { ScriptHostFacts } from "../../src/scripts/host_facts.ts";
import type { Skill } from "../../src/skills/skill.ts";

/** Arguments are judged before the skill, plan or host are looked at: none is needed. */
const UNUSED = {
  skill: {} as Skill,
  context: { plan: {} as ScriptPlan, facts: {} as ScriptHostFacts, dataDir: null },
};

async function refusalOf(args: readonly string[]): Promise<{ message: string; hint: string }> {
  const prepared = await prepareRun(UNUSED.skill, { script: "s.sh", args }, UNUSED.context);
  assert.equal(prepared.ok, false);
  if (prepared.ok) throw new Error("unreachable");
  assert.equal(prepared.code, "INVALID_ARGUMENTS");
  return prepared;
}

Deno.test("prepareRun() hints to remove the NUL character from an argument that holds one", async () => {
  const refused = await refusalOf(["fine", "a\u0000b"]);
  assert.equal(refused.message, "Argument 1 contains a NUL character");
  assert.match(refused.hint, /^Remove the NUL character/);
});

Deno.test("prepareRun() still hints at the size caps for too many arguments", async () => {
  const refused = await refusalOf(Array.from({ length: 10_000 }, () => "x"));
  assert.equal(refused.hint, "Send fewer or shorter arguments");
});

Deno.test("prepareRun() hints at well-formed text for a lone surrogate", async () => {
  const refused = await refusalOf(["\ud800"]);
  assert.match(refused.hint, /well-formed text/);
});
