/**
 * TEST-ONLY entry module (never shipped): the product's `serve` path as
 * main.ts runs it (roots checked, worker set computed, the real worker
 * started over stdio), which writes one stderr line per worker report in
 * the order the trusted part received them: `report ready`, `report
 * answered`, `report exit`. stdout carries the worker's MCP answers only.
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import { computeWorkerSet } from "../../src/sandbox/worker_set.ts";

const getEnv = (name: string) => Deno.env.get(name);
const config = parseCommandLine({ args: Deno.args, getEnv, cwd: Deno.cwd() });
const { paths } = await checkRoots(config.roots);
const { scripts, explained } = await computeWorkerSet(config, paths, { getEnv });
const session = startWorker(
  new URL("../../src/worker/entry.ts", import.meta.url),
  config,
  explained.permissions,
  { scripts: scripts.facts, groupKiller: scripts.groupKiller },
);
session.ready.then(() => console.error("report ready"));
session.answered.then(() => console.error("report answered"));
const exit = await session.exited;
console.error(`report exit ${exit.code}`);
Deno.exit(0);
