/**
 * Over HTTP without a bearer token (any local user can reach the port), and on
 * stateless replicas without a shared confirmation secret, the worker refuses
 * every `skill_run` whatever the skill (`http_run_refusal.ts`), decided from the
 * configuration alone. The worker then handles every byte those clients send,
 * so it must not hold the right to start the isolation launcher either (r3
 * review, issue 13: the permission wall is the second wall around our checks).
 */

import assert from "node:assert/strict";
import type { PermissionsReport } from "../../src/cli/permissions_command.ts";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

async function workerRun(args: readonly string[], env: Record<string, string>): Promise<string[]> {
  const run = await runProgram(["permissions", ...args, "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  return [...(JSON.parse(run.stdout) as PermissionsReport).worker.run];
}

Deno.test("attack: over HTTP without a bearer token, where skill_run is refused whatever the skill, the worker holds no run permission", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const env = { XDG_CACHE_HOME: tree.at("cache") };
  // Precondition: on stdio this host's launcher is on the run list (standalone: scripts may run).
  const onStdio = await workerRun([tree.path], env);
  if (onStdio.length === 0) return; // no isolation launcher here: nothing to hold
  assert.deepEqual(await workerRun([tree.path, "--http=38999"], env), []);
  // Stateless replicas without a shared MCP_CONFIRM_SECRET refuse every run too.
  assert.deepEqual(
    await workerRun([tree.path, "--http=38999", "--stateless"], {
      ...env,
      SKILLGATE_HTTP_TOKEN: TOKEN,
      MCP_CONFIRM_MODE: "ask-user",
    }),
    [],
  );
});

Deno.test("over HTTP with a bearer token (variable or file), the worker keeps the launcher it needs to run scripts", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes"), "token": TOKEN });
  const env = { XDG_CACHE_HOME: tree.at("cache") };
  const onStdio = await workerRun([tree.path], env);
  if (onStdio.length === 0) return; // no isolation launcher here
  assert.deepEqual(
    await workerRun([tree.path, "--http=38999"], { ...env, SKILLGATE_HTTP_TOKEN: TOKEN }),
    onStdio,
  );
  // `permissions` does not read the token file; serve does (or refuses to start).
  assert.deepEqual(
    await workerRun([tree.path, "--http=38999", `--http-token-file=${tree.at("token")}`], env),
    onStdio,
  );
});

Deno.test("the prediction mirrors it: over HTTP without a token the early worker is predicted without a run permission, as computed", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const run = await runProgram(["serve", tree.path, "--http=38999"], {
    entry: "tests/support/predict_main.ts",
    env: { XDG_CACHE_HOME: tree.at("cache") },
  });
  assert.equal(run.code, 0, run.stderr);
  const outcome = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
    predicted: { run: string[] | false } | null;
    same: boolean | null;
  };
  if (outcome.predicted === null) return; // nothing predicted on this host
  assert.equal(outcome.predicted.run, false);
  assert.equal(outcome.same, true);
});
