/**
 * The worker's permission set predicted before it is computed (issue 13):
 * `serve` creates the worker with it as early as it can, so the worker's
 * modules load while the trusted part finishes its start-up (its own modules,
 * the isolation probe). A module of its own, with few imports, because it is
 * loaded before the rest of the trusted part. A prediction grants nothing by
 * itself: the worker created with it is used only when its set equals the
 * computed one ({@linkcode adoptEarlyWorker}).
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { rootAround } from "../config/index_cache_dir.ts";
import { grantsAnything, parseGrant } from "../scripts/grant.ts";
import { findProgram, SYSTEM_FOLDERS } from "../scripts/system_folders.ts";
import {
  computeWorkerPermissions,
  type PermittedProgram,
  type RootPaths,
  toWorkerOption,
  type WorkerPermissions,
} from "./worker_permissions.ts";
import { heldWorkerOption } from "./worker_isolate.ts";
import { httpRunRefusal } from "../transports/http/http_run_refusal.ts";

/**
 * The worker's permission set as `computeWorkerSet` (worker_set.ts) will decide it,
 * predicted without the isolation probe (issue 13): the probe spawns
 * processes, and the worker's modules can load meanwhile in a worker created
 * with this set. Only a prediction: the caller compares it with the computed
 * set ({@linkcode sameWorkerOption}) before that worker receives anything,
 * and starts another worker when they differ, so no worker ever serves with
 * a set other than the computed one. The run list is empty when the grant
 * lets nothing run; otherwise it names the launcher the probe finds on a
 * host where it works (bwrap, else unshare). Pure but for looking the two up
 * in the system folders.
 *
 * @param config The frozen configuration.
 * @param roots The checked roots with their real paths.
 * @param options `sourceFolders`: the remote sources' `<key>` folders in the
 *   sources cache (`RemoteSetup.sourceFolders`), when any. @default none
 * @returns The predicted set, or null when it depends on the probe in a way
 *   not predicted here (`--isolation=group`, a host `MCP_DATA_DIR` that may
 *   hide the index cache, no launcher found).
 *
 * Requires `--allow-read` on the system folders (the trusted part holds `--allow-all`).
 */
export function predictWorkerPermissions(
  config: Config,
  roots: readonly RootPaths[],
  options: { sourceFolders?: readonly string[] } = {},
): WorkerPermissions | null {
  if (config.scripts.dataDir !== null) return null;
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  let run: PermittedProgram[] = [];
  if (
    grantsAnything(grant) && config.scripts.confirmMode !== "refuse" &&
    !runsRefusedOverTransport(config)
  ) {
    const requested = config.options.isolation;
    if (requested === "group") return null;
    const bwrap = requested === "pid-namespace" ? undefined : findProgram("bwrap", SYSTEM_FOLDERS);
    const launcher = bwrap !== undefined
      ? realPathOr(bwrap)
      : findProgram("unshare", SYSTEM_FOLDERS);
    if (launcher === undefined) return null;
    run = [{ path: launcher, reason: "predicted launcher" }];
  }
  const port = config.options.http;
  const listen = port === null ? {} : { listen: { host: config.options.host, port } };
  const sources = { sourceFolders: options.sourceFolders ?? [] };
  // As computed (worker_set.ts): no index cache at a skill root.
  const rootReals = roots.flatMap((root) => root.realPath === null ? [] : [root.realPath]);
  const indexCache = config.indexCacheDir !== null &&
      rootAround(realPathOr(config.indexCacheDir), rootReals) === null
    ? config.indexCacheDir
    : null;
  return computeWorkerPermissions(roots, { run, ...listen, indexCache, ...sources }).permissions;
}

/**
 * Whether the serving worker refuses every `skill_run` whatever the skill
 * because of how clients reach it (`httpRunRefusal`: HTTP without a bearer
 * token, stateless replicas without a shared confirmation secret). Then it
 * needs no run right: the permission wall must not hold one for a check the
 * worker alone makes (r3 review, issue 13). `--http-token-file` counts as a
 * token before it is read (`permissions` never reads it; `serve` reads it or
 * refuses to start). Pure.
 *
 * @param config The configuration (its token settled or not).
 * @returns True when no script can run over this transport.
 */
export function runsRefusedOverTransport(config: Config): boolean {
  const tokenFile = config.httpToken === null && config.options.httpTokenFile !== null;
  return httpRunRefusal(tokenFile ? { ...config, httpToken: "(from its file)" } : config) !== null;
}

/**
 * Whether two permission sets give a worker exactly the same rights (what
 * `new Worker` receives; the reasons beside each entry do not count). Pure.
 *
 * @param a One set.
 * @param b The other.
 * @returns True when the worker options are identical.
 */
export function sameWorkerOption(a: WorkerPermissions, b: WorkerPermissions): boolean {
  return JSON.stringify(toWorkerOption(a)) === JSON.stringify(toWorkerOption(b));
}

/**
 * Decides the fate of a worker created early with a predicted set: it is
 * kept only when that set gives exactly the computed rights, and so do the
 * rights the worker was really created with (recorded by `createWorkerIsolate`:
 * a caller passing another set than the worker holds, or a set changed since,
 * cannot get a wider worker kept); otherwise it is ended here, before it has
 * received anything (no configuration, no input), and the caller starts a
 * worker with the computed set.
 *
 * @param early The worker `createWorkerIsolate` created with `predicted`, or null when none
 *   was (any other worker is ended: its rights are unknown).
 * @param predicted The set it was created with (null: none was predicted).
 * @param computed The set computed after the isolation probe: the only one a
 *   serving worker may hold.
 * @returns `early` when its set equals `computed`, else null (and `early`,
 *   if any, has been terminated).
 */
export function adoptEarlyWorker(
  early: Worker | null,
  predicted: WorkerPermissions | null,
  computed: WorkerPermissions,
): Worker | null {
  if (early === null) return null;
  const held = heldWorkerOption(early);
  if (
    predicted !== null && sameWorkerOption(predicted, computed) &&
    held === JSON.stringify(toWorkerOption(computed))
  ) return early;
  early.terminate();
  return null;
}

/**
 * The real path of `path`, or `path` itself when it cannot be resolved (yet).
 *
 * @param path An absolute path.
 * @returns Its real path (symlinks resolved), or `path` on any error.
 *
 * Requires `--allow-read` on `path`.
 */
export function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}
