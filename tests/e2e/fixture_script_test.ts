/**
 * End-to-end: the fixture corpus's skill with a script (`log-triage`, an
 * `mcp-host` declaration) runs through `skill_run` once granted, and only
 * then; the real program on a temporary copy, driven by the real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { copyCorpus, FIXTURE_CORPUS } from "../support/corpora.ts";
import { connectStdio } from "../support/program.ts";

const SKILL = "log-triage";
const SCRIPT = "scripts/level_counts.sh";
const LOG = [
  "2026-03-02 14:01:07.331 INFO [main] app - started",
  "2026-03-02 14:01:09.002 WARN [pool-2] db - slow query (812 ms)",
  '{"ts":"2026-03-02T14:01:10Z","level":"ERROR","msg":"charge failed"}',
  "    at com.example.Billing.charge(Billing.java:88)",
  "WARNING:urllib3.connectionpool:Retrying (Retry(total=2))",
  "2026-03-02 14:01:11.500 ERROR [pool-2] app - giving up",
].join("\n") + "\n";

Deno.test("skill_run runs the fixture corpus's declared script once granted and returns its output", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  const dir = copy.skill(SKILL);
  await Deno.writeTextFile(join(dir, "service.log"), LOG);
  const dataDir = join(copy.dir, "data");
  await Deno.mkdir(dataDir);
  await using session = await connectStdio(["serve", copy.root], {
    env: {
      MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: SCRIPT }]),
      MCP_CONFIRM_MODE: "auto",
      MCP_DATA_DIR: dataDir,
    },
  });
  const loaded = (await session.call("skill_load", { name: SKILL })).structuredContent as {
    scripts: { script: string; canRun: boolean }[];
  };
  assert.deepEqual(loaded.scripts.map((entry) => [entry.script, entry.canRun]), [[SCRIPT, true]]);
  const result = await session.call("skill_run", {
    name: SKILL,
    script: SCRIPT,
    args: ["service.log"],
  });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const run = result.structuredContent as { exitCode: number; stdout: string; stderr: string };
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(
    run.stdout,
    "ERROR 2\nWARN 2\nINFO 1\nDEBUG 0\nother 1\nfirst ERROR at line 3\n",
  );
});

Deno.test("skill_run refuses the fixture corpus's script when nothing is granted", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  await using session = await connectStdio(["serve", copy.root], {
    env: { MCP_SKILL_RUN: "[]" },
  });
  const result = await session.call("skill_run", { name: SKILL, script: SCRIPT, args: ["x"] });
  assert.equal(result.isError, true);
  const text = result.content[0];
  assert.ok(text?.type === "text");
  assert.match(text.text, /SCRIPT_NOT_GRANTED/);
  assert.doesNotMatch(text.text, /ERROR \d/, "the script did not run");
});
