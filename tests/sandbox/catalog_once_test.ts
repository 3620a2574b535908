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

  Deno.test(`start-up loads each skill of the ${corpus.label} corpus once: the trusted part builds, the worker starts from it`, async () => {
    // Standalone with no grant: declarations stand, so the trusted part must judge them.
    const loads = await loadsAtStartUp(corpus, {});
    assert.deepEqual(loads, {
      trustedLoads: skills,
      workerLoads: 0,
      skillCount: skills,
      exitCode: 0,
    });
  });

  Deno.test(`start-up loads each skill of the ${corpus.label} corpus once: with nothing runnable only the worker builds`, async () => {
    const loads = await loadsAtStartUp(corpus, { MCP_SKILL_RUN: "[]" });
    assert.deepEqual(loads, {
      trustedLoads: 0,
      workerLoads: skills,
      skillCount: skills,
      exitCode: 0,
    });
  });
}
