/**
 * `serve` creates the worker before the rest of the trusted part loads (issue
 * 13: the worker's modules load on their own thread meanwhile). What main.ts
 * imports statically is what loads before that moment; these tests keep the
 * probe, the environment release, the owner's watch, the one-shot commands
 * and discovery out of it, so a later import cannot quietly move them back in
 * front of the worker.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../support/program.ts";

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly {
    readonly code?: { readonly specifier: string };
    readonly isDynamic?: boolean;
  }[];
}

/** The modules a module loads before any of its code runs: its static imports, transitively. */
async function staticGraphOf(entry: string): Promise<Set<string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--frozen", entry],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const pending = [...info.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.isDynamic === true || dependency.code === undefined) continue;
      pending.push(dependency.code.specifier);
    }
  }
  return new Set([...seen].map((specifier) => specifier.replace(`file://${REPO_ROOT}`, "")));
}

Deno.test("main.ts's static graph (loaded before the start record's worker) holds that worker's creation and the process preparation, not the configuration or the prediction", async () => {
  const graph = await staticGraphOf("main.ts");
  for (
    const needed of [
      "src/sandbox/early_start.ts",
      "src/sandbox/worker_isolate.ts",
      "src/sandbox/process_prep.ts",
    ]
  ) assert.ok(graph.has(needed), `${needed} should load before the record's worker is created`);
  const later = [
    "src/cli/trusted_start.ts",
    "src/config/file/load_config.ts",
    "src/config/root_check.ts",
    "src/sandbox/worker_prediction.ts",
    "src/cli/serve_command.ts",
  ];
  assert.deepEqual(later.filter((module) => graph.has(module)), []);
  assert.deepEqual([...graph].filter((module) => module.includes("jsonc-parser")), []);
});

Deno.test("main.ts's static graph with src/cli/trusted_start.ts (loaded before serve creates a predicted worker) holds the prediction and the worker's creation but none of the probe, env release, owner watch, commands, discovery or node:timers", async () => {
  const graph = new Set([
    ...await staticGraphOf("main.ts"),
    ...await staticGraphOf("src/cli/trusted_start.ts"),
  ]);
  for (const needed of ["src/sandbox/worker_prediction.ts", "src/sandbox/worker_isolate.ts"]) {
    assert.ok(graph.has(needed), `${needed} should load before the worker is created`);
  }
  const later = [
    "src/cli/serve_command.ts",
    "src/sandbox/worker_set.ts",
    "src/sandbox/script_boot.ts",
    "src/scripts/isolation.ts",
    "src/sandbox/env_release_service.ts",
    "src/sandbox/worker_host.ts",
    "src/config/file/watch_owner_files.ts",
    "src/cli/help.ts",
    "src/cli/config_command.ts",
    "src/cli/override_command.ts",
    "src/cli/health_command.ts",
    "src/skills/discover.ts",
    "src/files/path_gate.ts",
    "node:timers",
  ];
  assert.deepEqual(later.filter((module) => graph.has(module)), []);
});
