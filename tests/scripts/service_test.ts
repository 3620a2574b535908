import assert from "node:assert/strict";
import { parseCommandLine } from "../../src/config/cli.ts";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import { runScript } from "../../src/scripts/runner/run_script.ts";
import { createScriptService } from "../../src/scripts/service.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";

function service() {
  const config = parseCommandLine({
    args: ["serve", "/tmp"],
    getEnv: (name) => (name === "MCP_SKILL_RUN" ? "[]" : undefined),
    cwd: "/",
  });
  return createScriptService(config, {
    interpreters: lookUpInterpreters("/usr/bin:/bin"),
    permittedPrograms: [],
    envValues: {},
    capturedEnvNames: [],
    environ: { scrubbed: true, method: "proc-self-mem", note: "" },
    isolation: { mode: "process-group", unsharePath: null, note: "" },
    folderVerdicts: [],
  }, { killer: createGroupKiller() });
}

Deno.test("stopAll() ends running and waiting runs and waits for them", async () => {
  const scripts = service();
  const start = (index: number) =>
    scripts.track(scripts.queue.run(
      () =>
        runScript({
          program: "/bin/sh",
          args: ["-c", `echo ${index}; sleep 30`],
          cwd: "/tmp",
          env: { PATH: "/usr/bin:/bin" },
          timeoutMs: 60_000,
        }, { killer: scripts.killer, signal: scripts.stopSignal, graceMs: 200 }),
      scripts.stopSignal,
    ));
  const runs = Array.from({ length: 6 }, (_, index) => start(index));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await scripts.stopAll();
  const settled = await Promise.allSettled(runs);
  const cancelled = settled.filter((r) => r.status === "fulfilled" && r.value.cancelled).length;
  const leftQueue = settled.filter((r) => r.status === "rejected").length;
  assert.equal(cancelled, 4, "the four running ones were ended");
  assert.equal(leftQueue, 2, "the two waiting ones left the queue");
});

Deno.test("the service computes one plan per catalog snapshot", () => {
  const scripts = service();
  const catalog = { roots: [], skills: [], byName: new Map(), problems: [] };
  assert.equal(scripts.plan(catalog), scripts.plan(catalog));
  assert.equal(scripts.grant.from, "MCP_SKILL_RUN");
});

Deno.test("a pending service's whenSettled() asks once and waits for settle(), which puts the probed facts in force", async () => {
  const config = parseCommandLine({
    args: ["serve", "/tmp"],
    getEnv: (name) => (name === "MCP_SKILL_RUN" ? "[]" : undefined),
    cwd: "/",
  });
  const base = {
    interpreters: lookUpInterpreters("/usr/bin:/bin"),
    permittedPrograms: [],
    envValues: {},
    capturedEnvNames: [],
    environ: { scrubbed: true, method: "proc-self-mem", note: "" },
    folderVerdicts: [],
  } as const;
  let asked = 0;
  const scripts = createScriptService(config, {
    ...base,
    isolation: { mode: "process-group", unsharePath: null, note: "pending" },
  }, { killer: createGroupKiller(), pending: { ask: () => asked++ } });
  let isSettled = false;
  const waiting = scripts.whenSettled().then(() => (isSettled = true));
  void scripts.whenSettled();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(isSettled, false, "no tool call goes on before the probed facts");
  assert.equal(asked, 1, "asked once however many wait");
  const probed = {
    mode: "pid-namespace" as const,
    unsharePath: "/usr/bin/unshare",
    note: "probed",
  };
  scripts.settle({ ...base, isolation: probed });
  await waiting;
  assert.equal(scripts.facts.isolation.note, "probed");
  // Only the first settle counts.
  scripts.settle({ ...base, isolation: { ...probed, note: "again" } });
  assert.equal(scripts.facts.isolation.note, "probed");
});

Deno.test("a service created with final facts is settled at once and ignores settle()", async () => {
  const scripts = service();
  await scripts.whenSettled();
  scripts.settle({
    ...scripts.facts,
    isolation: { mode: "sandbox", unsharePath: null, note: "x" },
  });
  assert.equal(scripts.facts.isolation.mode, "process-group");
});
