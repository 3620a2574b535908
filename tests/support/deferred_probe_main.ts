/**
 * A minimal trusted part for `tests/sandbox/deferred_isolation_probe_test.ts`:
 * computes the worker set for the command line twice, as `serve` does
 * (`deferProbe`) and as `permissions` does (the probe awaited), then runs the
 * deferred probe, and prints whether the probe was deferred, what the two
 * starts decided apart from the facts, and both sets of facts. Run with the
 * trusted flags.
 *
 * @module
 */

import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { prepareScriptProcess } from "../../src/sandbox/process_prep.ts";
import { PENDING_ISOLATION } from "../../src/sandbox/script_boot.ts";
import { computeWorkerSet, type WorkerSet } from "../../src/sandbox/worker_set.ts";
import { toWorkerOption } from "../../src/sandbox/worker_permissions.ts";

const getEnv = (name: string) => Deno.env.get(name);
const config = parseCommandLine({ args: Deno.args, getEnv, cwd: Deno.cwd() });
const { paths } = await checkRoots(config.roots);
const prepared = prepareScriptProcess();
const deferred = await computeWorkerSet(config, paths, { getEnv, prepared, deferProbe: true });
const awaited = await computeWorkerSet(config, paths, { getEnv, prepared });

/** What a start decides besides the script facts. */
function decided(set: WorkerSet) {
  return {
    worker: toWorkerOption(set.explained.permissions),
    run: set.scripts.run,
    refusal: set.scripts.refusal,
    warning: set.scripts.warning,
    dataDirProblem: set.scripts.dataDirProblem,
    indexCacheDir: set.indexCacheDir,
    mayRun: set.scripts.mayRun,
  };
}

const late = deferred.scripts.pendingIsolation === null
  ? null
  : await deferred.scripts.pendingIsolation();
console.log(JSON.stringify({
  isDeferred: deferred.scripts.pendingIsolation !== null,
  startFactsPending: deferred.scripts.facts.isolation.note.startsWith(PENDING_ISOLATION.note),
  sameDecisions: JSON.stringify(decided(deferred)) === JSON.stringify(decided(awaited)),
  lateFacts: late,
  awaitedFacts: awaited.scripts.facts,
}));
Deno.exit(0);
