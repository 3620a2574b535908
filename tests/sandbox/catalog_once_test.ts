import assert from "node:assert/strict";
import { corpora, type Corpus } from "../support/corpora.ts";
import { runProgram } from "../support/program.ts";

interface Loads {
  readonly trustedLoads: number;
  readonly workerLoads: number;
  readonly skillCount: number;
  readonly exitCode: number;
}

async function loadsAtStartUp(corpus: Corpus, env: Record<string, string>): Promise<Loads> {
  const { code, stdout, stderr } = await runProgram(["serve", corpus.path], {
    entry: "tests/support/catalog_once_main.ts",
    env,
  });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

for (const corpus of corpora()) {
  const skills = corpus.names.length;
  const once = { trustedLoads: 0, workerLoads: skills, skillCount: skills, exitCode: 0 };

  Deno.test(`start-up loads each skill of the ${corpus.label} corpus once, in the worker only: standalone, declarations stand`, async () => {
    // Before issue 13 the trusted part parsed every skill here to judge the declarations.
    assert.deepEqual(await loadsAtStartUp(corpus, {}), once);
  });

  Deno.test(`start-up loads each skill of the ${corpus.label} corpus once, in the worker only: with a grant`, async () => {
    const grant = JSON.stringify([{ skill: "pdf", script: "scripts/check.py", env: ["TOKEN"] }]);
    assert.deepEqual(await loadsAtStartUp(corpus, { MCP_SKILL_RUN: grant }), once);
  });

  Deno.test(`start-up loads each skill of the ${corpus.label} corpus once: with nothing runnable only the worker builds`, async () => {
    assert.deepEqual(await loadsAtStartUp(corpus, { MCP_SKILL_RUN: "[]" }), once);
  });
}
