/**
 * The worker's permission set for a configuration, decided in ONE place:
 * `serve` (main.ts) starts the worker with it and `skillgate permissions`
 * prints it, so what the owner is shown is what the worker gets. Anything
 * that widens the worker (the run list from granted scripts, a listen address
 * for HTTP) belongs here, not at either call site.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { rootAround, rootProblem } from "../config/index_cache_dir.ts";
import { launcherOf } from "../scripts/host_facts.ts";
import { isolate, type Isolation } from "../scripts/isolation.ts";
import type { DeclarationBase } from "../skills/declared_env.ts";
import type { Catalog } from "../skills/skill.ts";
import type { PreparedProcess } from "./process_prep.ts";
import { bootScripts, type ScriptBoot } from "./script_boot.ts";
import {
  computeWorkerPermissions,
  digestIsolatePermissions,
  type ExplainedPermissions,
  type PermittedProgram,
  type RootPaths,
} from "./worker_permissions.ts";
import { realPathOr, runsRefusedOverTransport } from "./worker_prediction.ts";

// The prediction lives in a module of its own (the trusted part's start-up loads it before the
// rest, issue 13); re-exported where the computed set is decided.
export { predictWorkerPermissions, sameWorkerOption } from "./worker_prediction.ts";

/** The script start-up work and the permission set it leads to. */
export interface WorkerSet {
  /** Script facts, run list, group killer and warning (see `bootScripts`). */
  readonly scripts: ScriptBoot;
  /**
   * The index cache folder the worker may use: the configured one, or null
   * when none is kept or a sandbox mounts it for scripts (inside `MCP_DATA_DIR`).
   */
  readonly indexCacheDir: string | null;
  /** Why the configured index cache folder is not used (one line), or null. */
  readonly indexCacheProblem: string | null;
  /** The worker's permissions with a reason per entry. */
  readonly explained: ExplainedPermissions;
  /**
   * The declaration reader's permissions (`declared_env_host.ts`): the roots
   * and (with grant rows, the only way a remote skill gets a value) this
   * configuration's sources' folders in the sources cache, read only; nothing else.
   */
  readonly declarationReader: ExplainedPermissions;
  /**
   * The digest isolate's permissions (`digest_isolate_host.ts`, issue 13):
   * the roots and this configuration's sources' folders in the sources
   * cache, read only; nothing else.
   */
  readonly digestIsolate: ExplainedPermissions;
  /**
   * What live refresh's watch may be at or under (`watch_isolate_host.ts`,
   * the trusted part's inotify): each local root as configured and real.
   */
  readonly watchRoots: readonly string[];
  /**
   * Folders a skill folder must lie inside for the declaration reader, each
   * with the prefix its skills are served under: every root's real path, and
   * the sources cache once per remote source's prefix.
   */
  readonly declarationBases: readonly DeclarationBase[];
  /**
   * The one of `declarationBases` that is the sources cache (remote skills),
   * or null without remote sources: a remote skill's declaration grants no
   * environment name without a grant row (as it grants no run, `plan.ts`).
   */
  readonly declarationSourcesBase: string | null;
}

/**
 * Does the trusted part's script start-up work (environ scrub, interpreter
 * look-up, isolation probe, grant against the declarations present now) and
 * computes the worker's permission set from it and the roots.
 *
 * @param config The frozen configuration.
 * @param roots The checked roots with their real paths (from `checkRoots`).
 * @param options An environment lookup (the trusted part passes `Deno.env.get`),
 *   for `skillgate permissions` only a catalog to describe each granted
 *   script's containment (it never changes the set), `beforeProbe`, called
 *   once the environment is scrubbed, just before the isolation probe, and
 *   `prepared`: the process preparation `serve` did before creating the
 *   worker with the predicted set ({@linkcode predictWorkerPermissions}), and
 *   `deferProbe` (`serve`): the probe waits when it can decide nothing but the
 *   isolation shown (`bootScripts`; then `scripts.pendingIsolation` runs it).
 *   With remote sources: `sourcesCache`, the sources cache folder (its real
 *   path is the declaration reader's base for remote skills, never a
 *   permission), and `sourceFolders` (`RemoteSetup.sourceFolders`), the
 *   configured sources' `<key>` folders: the only part of the cache the
 *   worker, digest isolate and declaration reader may read (review r16, A5).
 * @returns The script boot and the explained permission set.
 *
 * Requires `--allow-all` (see `bootScripts`); the trusted part holds it.
 *
 * Source: issue 5 ("One source of truth: ... the worker set computed from
 * configuration").
 */
export async function computeWorkerSet(
  config: Config,
  roots: readonly RootPaths[],
  options: {
    getEnv: (name: string) => string | undefined;
    describe?: Catalog;
    sourcesCache?: string;
    sourceFolders?: readonly string[];
    beforeProbe?: () => void;
    prepared?: PreparedProcess;
    deferProbe?: boolean;
  },
): Promise<WorkerSet> {
  const scripts = await bootScripts(config, {
    getEnv: options.getEnv,
    ...(options.deferProbe === true ? { deferProbe: true } : {}),
    ...(options.beforeProbe === undefined ? {} : { beforeProbe: options.beforeProbe }),
    ...(options.prepared === undefined ? {} : { prepared: options.prepared }),
    ...(options.describe === undefined ? {} : { catalog: options.describe }),
    rootRealPaths: roots.flatMap((root) => root.realPath === null ? [] : [root.realPath]),
  });
  // Over HTTP without a token (or on replicas without a shared secret) every run is refused
  // whatever the skill: the worker, which reads every byte those clients send, gets no run right.
  const run = runsRefusedOverTransport(config)
    ? []
    : spawnedPrograms(scripts.run, scripts.facts.isolation);
  const port = config.options.http;
  const listen = port === null ? {} : { listen: { host: config.options.host, port } };
  // Inside a data folder every sandboxed script may write, the cache could be forged: none.
  // At a skill root (is, holds or lies inside one), the worker would write among skills: none.
  const rootReals = roots.flatMap((root) => root.realPath === null ? [] : [root.realPath]);
  const atRoot = config.indexCacheDir === null
    ? null
    : rootAround(realPathOr(config.indexCacheDir), rootReals);
  const indexCache = scripts.indexCacheExposed || atRoot !== null ? null : config.indexCacheDir;
  // Each part reads only this configuration's sources' folders, never the whole shared sources
  // cache (review r16, A5); the cache's real path stays the declaration reader's base.
  const sources = { sourceFolders: options.sourceFolders ?? [] };
  const sourcesBase = options.sourcesCache === undefined ? null : realPathOr(options.sourcesCache);
  return {
    indexCacheDir: indexCache,
    indexCacheProblem: atRoot !== null
      ? `the index cache folder ${rootProblem(atRoot)}; running without it`
      : scripts.indexCacheExposed
      ? "the index cache folder lies inside MCP_DATA_DIR, which sandboxed scripts may write; " +
        "running without it (set --index-cache to a folder outside MCP_DATA_DIR)"
      : null,
    scripts,
    explained: computeWorkerPermissions(roots, { run, ...listen, indexCache, ...sources }),
    // Without grant rows a remote skill's declaration releases nothing: no read on its cache then.
    declarationReader: computeWorkerPermissions(roots, scripts.grant.rows === null ? {} : sources),
    digestIsolate: digestIsolatePermissions(roots, sources),
    watchRoots: [
      ...new Set(
        roots.flatMap((root) => root.realPath === null ? [root.path] : [root.path, root.realPath]),
      ),
    ],
    declarationBases: declarationBasesOf(config, roots, sourcesBase),
    declarationSourcesBase: sourcesBase,
  };
}

/**
 * What the runner will actually spawn for each program: the program itself,
 * `unshare` when scripts run in a PID namespace, or the group launcher (`sh`,
 * after `setpriv` as root) in process-group mode (`isolate()` decides, as
 * for every run), so the run permission names exactly what is spawned.
 */
function spawnedPrograms(
  programs: readonly PermittedProgram[],
  isolation: Isolation,
): PermittedProgram[] {
  const launcher = launcherOf(isolation);
  return programs.map((program) => {
    const spawned = isolate(program.path, [], isolation).program;
    if (spawned === program.path && spawned !== launcher) return program;
    const reason = isolation.mode === "sandbox"
      ? "every granted script runs in a bubblewrap sandbox: bwrap is the one program spawned"
      : isolation.mode === "pid-namespace"
      ? "every granted script runs through unshare, in its own PID namespace"
      : spawned === isolation.launcher?.setprivPath
      ? "every granted script starts through setpriv (no capability as root), then the group " +
        "launcher sh, which waits stopped until its process group is registered"
      : "every granted script starts through the group launcher sh, which waits stopped until " +
        "its process group is registered";
    return { path: spawned, reason };
  });
}

/**
 * The declaration reader's bases: each root's real path with that root's
 * prefix (a root configured twice, with two prefixes, gives two), and the
 * sources cache with each remote source's prefix (its revisions are swapped
 * in by rename, so the folder, not a revision, is the base). Pure.
 *
 * @param config The configuration (its roots' prefixes and origins).
 * @param roots The checked local roots' paths and real paths (remote ones are ignored here).
 * @param sourcesBase The sources cache's real path, or null without remote sources.
 * @returns The bases, in the roots' order, the sources cache's last.
 */
export function declarationBasesOf(
  config: Config,
  roots: readonly RootPaths[],
  sourcesBase: string | null,
): DeclarationBase[] {
  const bases: DeclarationBase[] = [];
  for (const root of roots) {
    if (root.realPath === null) continue;
    for (const configured of config.roots) {
      if (configured.path !== root.path || configured.from === "remote") continue;
      bases.push({ path: root.realPath, prefix: configured.prefix ?? null, isRoot: true });
    }
  }
  if (sourcesBase !== null) {
    for (const configured of config.roots) {
      if (configured.from !== "remote") continue;
      bases.push({ path: sourcesBase, prefix: configured.prefix ?? null });
    }
  }
  return bases;
}
