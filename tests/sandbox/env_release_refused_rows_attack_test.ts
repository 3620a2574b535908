/**
 * Attack (r12): a worker that no longer takes the plan's word asks the trusted
 * part for names of a grant row the plan itself refuses. The plan
 * (`src/scripts/plan.ts`) says such a row "grants nothing": a row repeating an
 * earlier (skill, script), a row naming an env name the script does not
 * declare, a row whose read/write folder the start-up check refused. The
 * trusted part's release rule (`src/sandbox/env_release.ts`) must not be wider
 * than the plan, or a compromised worker gets values the owner's grant, as
 * skillgate reads it everywhere else, never gave that script.
 */
import assert from "node:assert/strict";
import { parseGrant } from "../../src/scripts/grant.ts";
import { releaseEnv } from "../../src/sandbox/env_release.ts";
import type { DeclaredScript } from "../../src/scripts/declaration.ts";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import { planScripts, type PlanSkill } from "../../src/scripts/plan.ts";

const ENV: Record<string, string> = { FIRST_KEY: "first-value", SECOND_KEY: "second-value" };
const getEnv = (name: string) => ENV[name];
/** The skill's own declaration, as the declaration reader would read it: both names. */
const declaredEnv = () => Promise.resolve(["FIRST_KEY", "SECOND_KEY"]);
const request = { skill: "tool", script: "scripts/run.sh", dir: "/srv/skills/tool" };

Deno.test("attack: a second row for the same script, which the plan refuses, releases nothing more", async () => {
  const grant = parseGrant(
    JSON.stringify([
      { skill: "tool", script: "scripts/run.sh", env: ["FIRST_KEY"] },
      { skill: "tool", script: "scripts/run.sh", env: ["SECOND_KEY"] },
    ]),
    { hosted: true, hostedBy: "MCP_SKILLS_PATH" },
  );
  // What the plan grants: the first row only ("an earlier row grants it").
  const declared: DeclaredScript = {
    script: "scripts/run.sh",
    interpreter: "sh",
    env: ["FIRST_KEY", "SECOND_KEY"],
    timeoutMs: 1000,
  };
  const skill: PlanSkill = {
    name: "tool",
    scripts: {
      declaration: { run: [declared], declaredEgress: [], envProposals: [], hasState: false },
      scripts: [declared],
      realPaths: { "scripts/run.sh": "/srv/skills/tool/scripts/run.sh" },
    },
  };
  const plan = planScripts([skill], grant, {
    interpreters: lookUpInterpreters("/usr/bin", { isExecutable: () => true }),
    permittedPrograms: null,
    capturedEnv: null,
    environ: { scrubbed: true, method: "proc-self-mem", note: "overwritten" },
    hosted: true,
    allowUnscrubbed: false,
    confirmMode: "ask-user",
  });
  const planned = plan.bySkill.get("tool")?.[0];
  assert.deepEqual(planned?.grantedEnv, ["FIRST_KEY"]);
  assert.ok(plan.problems.some((problem) => /an earlier row grants it/.test(problem.detail)));
  const released = await releaseEnv(grant, { ...request, names: ["FIRST_KEY", "SECOND_KEY"] }, {
    getEnv,
    declaredEnv,
  });
  assert.deepEqual(released, { FIRST_KEY: "first-value" }, "SECOND_KEY comes from a refused row");
});

Deno.test("attack: a row the plan refuses for an undeclared name releases none of its names", async () => {
  // The script declares FIRST_KEY only; the row also names OTHER, so the plan refuses the row.
  const grant = parseGrant(
    JSON.stringify([{ skill: "tool", script: "scripts/run.sh", env: ["FIRST_KEY", "OTHER"] }]),
    { hosted: true, hostedBy: "MCP_SKILLS_PATH" },
  );
  const released = await releaseEnv(grant, { ...request, names: ["FIRST_KEY"] }, {
    getEnv,
    declaredEnv: () => Promise.resolve(["FIRST_KEY"]),
  });
  assert.deepEqual(released, {}, "the plan says this row grants nothing");
});

Deno.test("attack: a row whose folder the start-up check refused releases none of its names, a later usable row does", async () => {
  const grant = parseGrant(
    JSON.stringify([
      { skill: "tool", script: "scripts/run.sh", env: ["FIRST_KEY"], read: ["/nowhere-r12"] },
      { skill: "tool", script: "scripts/run.sh", env: ["SECOND_KEY"] },
    ]),
    { hosted: true, hostedBy: "MCP_SKILLS_PATH" },
  );
  const refusedFolder = (index: number) =>
    index === 0 ? "its read folder #0 does not exist or is not a folder" : undefined;
  const released = await releaseEnv(grant, { ...request, names: ["FIRST_KEY", "SECOND_KEY"] }, {
    getEnv,
    declaredEnv,
    refusedFolder,
  });
  assert.deepEqual(
    released,
    { SECOND_KEY: "second-value" },
    "row 0 grants nothing; row 1 is in force",
  );
});
