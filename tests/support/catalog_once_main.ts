/**
 * TEST-ONLY entry module (never shipped): the product's `serve` path as
 * main.ts runs it (roots checked, worker set computed, the real worker
 * started; it builds the catalog itself), then prints how many skill folders the
 * trusted part and the worker each loaded from disk, as JSON on stdout. With
 * stdin closed the worker sees the client leave and exits.
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import { computeWorkerSet } from "../../src/sandbox/worker_set.ts";
import { skillLoadsSoFar } from "../../src/skills/_load_skill.ts";

const getEnv = (name: string) => Deno.env.get(name);
const config = parseCommandLine({ args: Deno.args, getEnv, cwd: Deno.cwd() });
const { paths } = await checkRoots(config.roots);
const { scripts, explained } = await computeWorkerSet(config, paths, { getEnv });
const trustedLoads = skillLoadsSoFar();
const session = startWorker(
  new URL("../../src/worker/entry.ts", import.meta.url),
  config,
  explained.permissions,
  { scripts: scripts.facts, groupKiller: scripts.groupKiller },
);
const ready = await session.ready;
const exit = await session.exited;
console.log(JSON.stringify({
  trustedLoads,
  workerLoads: ready.skillLoads,
  skillCount: ready.skillCount,
  exitCode: exit.code,
}));
Deno.exit(0);
