/**
 * A minimal trusted part for `tests/sandbox/worker_prediction_test.ts`:
 * predicts the worker's permission set (no probe), then computes it (with the
 * probe, as `serve` does) and prints both, as the worker would receive them,
 * and whether they give the same rights. Run with the trusted flags.
 *
 * @module
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import {
  computeWorkerSet,
  predictWorkerPermissions,
  sameWorkerOption,
} from "../../src/sandbox/worker_set.ts";
import { toWorkerOption } from "../../src/sandbox/worker_permissions.ts";

const getEnv = (name: string) => Deno.env.get(name);
const config = parseCommandLine({ args: Deno.args, getEnv, cwd: Deno.cwd() });
const { paths } = await checkRoots(config.roots);
const predicted = predictWorkerPermissions(config, paths);
let calledBeforeProbe = 0;
const { explained } = await computeWorkerSet(config, paths, {
  getEnv,
  beforeProbe: () => calledBeforeProbe++,
});
console.log(JSON.stringify({
  predicted: predicted === null ? null : toWorkerOption(predicted),
  computed: toWorkerOption(explained.permissions),
  same: predicted === null ? null : sameWorkerOption(predicted, explained.permissions),
  calledBeforeProbe,
}));
Deno.exit(0);
