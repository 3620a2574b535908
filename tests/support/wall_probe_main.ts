/**
 * TEST-ONLY entry module (never shipped, never reachable by a flag or a
 * variable of the product): the product's trusted part, unchanged, except that
 * it starts `wall_probe_worker.ts` instead of the real worker. The probe
 * worker skips the application's path gate and grant check and calls Deno's
 * APIs directly, so what it can and cannot do is exactly what Deno's
 * permission wall allows. Prints the probe's findings as JSON on stdout.
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { startWorker } from "../../src/sandbox/worker_host.ts";
import { computeWorkerPermissions } from "../../src/sandbox/worker_permissions.ts";

const config = parseCommandLine({
  args: Deno.args,
  getEnv: (name) => Deno.env.get(name),
  cwd: Deno.cwd(),
});
const { paths } = await checkRoots(config.roots);
const { permissions } = computeWorkerPermissions(paths);
const session = startWorker(
  new URL("./wall_probe_worker.ts", import.meta.url),
  config,
  permissions,
);
const exit = await session.exited;
console.log(exit.message ?? "{}");
Deno.exit(exit.code);
