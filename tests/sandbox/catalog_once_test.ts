import assert from "node:assert/strict";
import { CORPUS, runProgram } from "../support/program.ts";

interface Loads {
  readonly trustedLoads: number;
  readonly workerLoads: number;
  readonly skillCount: number;
  readonly exitCode: number;
}

async function loadsAtStartUp(env: Record<string, string>): Promise<Loads> {
  const { code, stdout, stderr } = await runProgram(["serve", CORPUS], {
    entry: "tests/support/catalog_once_main.ts",
    env,
  });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

Deno.test("start-up loads each skill once, in the worker only: standalone, declarations stand", async () => {
  // Before issue 13 the trusted part parsed every skill here to judge the declarations.
  const loads = await loadsAtStartUp({});
  assert.deepEqual(loads, { trustedLoads: 0, workerLoads: 12, skillCount: 12, exitCode: 0 });
});

Deno.test("start-up loads each skill once, in the worker only: with a grant", async () => {
  const grant = JSON.stringify([{ skill: "pdf", script: "scripts/check.py", env: ["TOKEN"] }]);
  const loads = await loadsAtStartUp({ MCP_SKILL_RUN: grant });
  assert.deepEqual(loads, { trustedLoads: 0, workerLoads: 12, skillCount: 12, exitCode: 0 });
});

Deno.test("start-up loads each skill once: with nothing runnable only the worker builds", async () => {
  const loads = await loadsAtStartUp({ MCP_SKILL_RUN: "[]" });
  assert.deepEqual(loads, { trustedLoads: 0, workerLoads: 12, skillCount: 12, exitCode: 0 });
});
