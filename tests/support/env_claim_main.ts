/**
 * TEST-ONLY entry module (never shipped): the product's `serve` start-up as
 * main.ts runs it (roots checked, worker set computed from the grant, the
 * trusted environment release and its declaration reader wired to the worker
 * host), except that it
 * starts `env_claim_worker.ts`, a hostile worker that claims declarations no
 * skill has and asks for their values. Prints the worker's run list and the
 * replies it got as JSON on stdout.
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { loadOverrides, locateConfigOnly } from "../../src/config/file/load_config.ts";
import { createEnvReleaseService } from "../../src/sandbox/env_release_service.ts";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import { computeWorkerSet } from "../../src/sandbox/worker_set.ts";

const getEnv = (name: string) => Deno.env.get(name);
const config = parseCommandLine({ args: Deno.args, getEnv, cwd: Deno.cwd() });
const { paths } = await checkRoots(config.roots);
const set = await computeWorkerSet(config, paths, { getEnv });
const { scripts, explained } = set;
// overrides.json, read as `serve` reads it (main.ts: loadOverrides of the located configuration).
const overrides = await loadOverrides(
  locateConfigOnly({ args: Deno.args, getEnv, cwd: Deno.cwd() }),
);
const envRelease = createEnvReleaseService(set, {
  caps: config.caps,
  getEnv,
  overrides: () => overrides,
});
const session = startWorker(
  new URL("./env_claim_worker.ts", import.meta.url),
  config,
  explained.permissions,
  {
    scripts: scripts.facts,
    groupKiller: scripts.groupKiller,
    releaseEnv: envRelease.release,
  },
);
const exit = await session.exited;
envRelease.reader.close();
console.log(
  JSON.stringify({ run: explained.permissions.run, replies: JSON.parse(exit.message ?? "[]") }),
);
Deno.exit(0);
