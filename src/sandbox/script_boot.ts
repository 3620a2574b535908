/**
 * The trusted part's start-up work for running scripts, in order: scrub the
 * original environment block (first, before anything else reads it), look
 * up the interpreters, probe the isolation, read the grant, and so decide the
 * worker's run permission, without parsing any skill (issue 13): when the
 * grant can let anything run, the run list is the one launcher every granted
 * script is spawned through (bwrap, unshare, or the group launcher), which
 * starts whatever the worker names anyway, so naming the interpreters behind
 * it narrowed nothing. Environment values are not decided here: the trusted
 * part releases them per run (`env_release.ts`). Also creates the killer that
 * answers the worker's process-group requests.
 *
 * @module
 */

import { resolve } from "node:path";
import type { Config } from "../config/config.ts";
import { type Grant, grantsAnything, parseGrant } from "../scripts/grant.ts";
import { grantedFacts, prepareScriptHost, type ScriptHostFacts } from "../scripts/host_facts.ts";
import { lookUpInterpreters } from "../scripts/interpreters.ts";
import {
  isolate,
  type Isolation,
  type IsolationMode,
  type IsolationRequest,
  probeIsolation,
} from "../scripts/isolation.ts";
import type { ScriptPlan } from "../scripts/plan.ts";
import type { Mount } from "../scripts/sandbox/layout.ts";
import { systemMountHolding } from "../scripts/sandbox/system_mounts.ts";
import { locateConfig } from "../config/file/load_config.ts";
import {
  checkGrantFolders,
  type FolderVerdict,
  isWithin,
  protectedFoldersOf,
} from "../scripts/sandbox/grant_folders.ts";
import { type EnvironStatus, isEnvironRefused } from "../scripts/plan.ts";
import type { Catalog } from "../skills/skill.ts";
import { installDir } from "../entry_points.ts";
import { type PreparedProcess, prepareScriptProcess } from "./process_prep.ts";
import { createGroupKiller, type TrustedGroupKiller } from "./group_killer.ts";
import { endGroupsAtExit } from "./process_exit.ts";
import type { PermittedProgram } from "./worker_permissions.ts";

/** How one granted script is contained, as `skillgate permissions --json` shows it. */
export interface ScriptContainment {
  readonly skill: string;
  readonly script: string;
  readonly isolation: IsolationMode;
  /** Namespaces the script gets of its own. */
  readonly namespaces: readonly string[];
  /** Whether it reaches the network (every mode but a sandbox without granted network). */
  readonly network: boolean;
  /** `sandbox` mode: every mount, in order; empty otherwise (it sees what skillgate's user sees). */
  readonly mounts: readonly Mount[];
}

/** What the trusted part hands on after the script start-up work. */
export interface ScriptBoot {
  readonly facts: ScriptHostFacts;
  /**
   * The programs the worker may spawn, each with its reason: the one launcher
   * of the isolation mode whenever the grant can let anything run (the
   * allowlisted interpreters only when a mode has no launcher), else empty.
   * Decided from the grant alone, never from what skills declare.
   */
  readonly run: readonly PermittedProgram[];
  readonly groupKiller: TrustedGroupKiller;
  /**
   * One line for stderr when every script is refused at start-up (a script
   * variable left as a placeholder; hosted without a scrub), else null.
   */
  readonly warning: string | null;
  /**
   * Each script runnable with what contains it: its isolation mode,
   * namespaces, network and (sandbox) mounts, for `skillgate permissions`
   * (empty unless a catalog was passed in).
   */
  readonly containment: readonly ScriptContainment[];
  /** The plan's `grant` problems, one line each (empty unless a catalog was passed in). */
  readonly grantProblems: readonly string[];
  /** The grant the trusted part read: the bound of every environment release. */
  readonly grant: Grant;
  /**
   * The start-up check of the grant rows' folders (one verdict per row that
   * names folders): a row refused here grants nothing, in the plan and in the
   * environment release alike.
   */
  readonly folderVerdicts: readonly FolderVerdict[];
  /**
   * Whether any script may run at all: the grant grants something, the
   * isolation probe refused nothing, the environ check passed and
   * `MCP_CONFIRM_MODE` is not `refuse`. False: the plan blocks every run, and
   * the environment release gives nothing either (review r13, G6).
   */
  readonly mayRun: boolean;
  /**
   * In a sandbox, why the host's `MCP_DATA_DIR` is not mounted (missing, or
   * refused by the grant folders' check: `/`, a home, a root, skillgate's
   * own folders), for the owner's terminal; else null. Names no path.
   */
  readonly dataDirProblem: string | null;
  /**
   * True when a sandbox mounts the host's `MCP_DATA_DIR` read-write and the
   * index cache folder lies inside it (hosted, by default): every sandboxed
   * script could forge cache entries, so skillgate keeps no index cache.
   */
  readonly indexCacheExposed: boolean;
  /**
   * Why skillgate must not start (the owner demanded `--isolation=sandbox`
   * and this host has none: the reason and what to install), else null.
   */
  readonly refusal: string | null;
  /**
   * With `deferProbe`, when the probe can decide nothing but the isolation
   * shown ({@linkcode probeDecidesOnlyFacts}): runs the probe and returns the
   * facts with the isolation found (everything else as `facts`, whose
   * isolation is {@linkcode PENDING_ISOLATION} until then). Else null: the
   * probe already ran.
   */
  readonly pendingIsolation: (() => Promise<ScriptHostFacts>) | null;
}

/**
 * Does the start-up work. No skill is read here: serving builds its catalog
 * in the worker only. The one-shot `permissions` command passes the catalog
 * it built to show each script's containment and grant problems.
 *
 * @param config The configuration.
 * @param options An environment lookup (after the scrub values are still
 *   readable), the roots' real paths (grants may not name them),
 *   optionally a catalog to describe (never used for the run list), and
 *   `beforeProbe`, called once after the scrub, just before the probe, and
 *   `prepared`: the process's preparation when the caller already did it
 *   (`prepareScriptProcess`; done here otherwise), and `deferProbe`
 *   (`serve`): when the probe can decide nothing but the isolation shown,
 *   do not run it now but return it as `pendingIsolation`. @default false
 * @returns The facts for the worker, its run list, the killer, a warning, and
 *   the grant read.
 *
 * Requires `--allow-all` (`/proc` access for the scrub and the killer,
 * unrestricted `--allow-run` for the namespace probe and group signals).
 *
 * Source: issue 4 ("Secrets", "Interpreters", "Runner").
 */
export async function bootScripts(
  config: Config,
  options: {
    getEnv: (name: string) => string | undefined;
    rootRealPaths?: readonly string[];
    catalog?: Catalog;
    beforeProbe?: () => void;
    prepared?: PreparedProcess;
    deferProbe?: boolean;
  },
): Promise<ScriptBoot> {
  // `serve` prepared the process before creating the worker (issue 13); otherwise done here.
  const { scrub, dumpable } = options.prepared ?? prepareScriptProcess();
  const interpreters = lookUpInterpreters(options.getEnv("PATH"));
  const groupKiller = createGroupKiller();
  // Every exit of the trusted part ends the groups it started, whatever ends it (review r13).
  endGroupsAtExit(() => groupKiller.killAllNow());
  const protectedFolders = protectedFoldersOf({
    roots: [...(options.rootRealPaths ?? []), ...config.roots.map((root) => root.path)],
    installDir: installDir(),
    getEnv: options.getEnv,
    configPath: locateConfig(config, options.getEnv)?.path ?? null,
    indexCacheDir: config.indexCacheDir,
    trustedFiles: [
      ...(config.remoteSources.length > 0 ? [config.lockPath] : []),
      ...(config.options.httpTokenFile === null ? [] : [resolve(config.options.httpTokenFile)]),
    ],
  });
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  const folderVerdicts = checkGrantFolders(grant, protectedFolders);
  // After the scrub: `serve` starts loading the worker's modules here, while the probe runs.
  options.beforeProbe?.();
  const probe = () =>
    probeIsolation({
      shPath: interpreters.sh.available ? interpreters.sh.path : null,
      killer: groupKiller,
      requested: config.options.isolation as IsolationRequest,
      interpreterPrograms: Object.values(interpreters).flatMap((entry) =>
        entry.available && entry.path !== null ? [entry.path] : []
      ),
      protectedFolders,
      dataDir: config.scripts.dataDir,
    });
  // Everything the probe's outcome decides, in one place for the awaited and the deferred probe.
  const decide = (probed: Isolation): Omit<ScriptBoot, "pendingIsolation"> => {
    // In a PID namespace skillgate's /proc is out of sight anyway; in a group it is the wall.
    const isolation = probed.mode === "process-group" && probed.refusal === undefined
      ? { ...probed, note: `${probed.note} ${dumpable.note}.` }
      : probed;
    const environ: EnvironStatus = !scrub.scrubbed && isolation.mode !== "process-group"
      ? {
        scrubbed: true,
        method: "private-proc",
        note:
          `${scrub.note}; but every script runs in its own PID namespace (or sandbox), whose /proc does ` +
          "not show skillgate",
      }
      : scrub;
    const refused = isEnvironRefused({
      hosted: config.hosted,
      environ,
      allowUnscrubbed: config.scripts.allowUnscrubbed,
    });
    const mayRun = grantsAnything(grant) && probed.refusal === undefined && !refused &&
      config.scripts.confirmMode !== "refuse";
    const { facts, programs } = grantedFacts(config, {
      mayRun,
      interpreters,
      environ,
      isolation,
      folderVerdicts,
      grant,
      getEnv: options.getEnv,
    });
    const described = options.catalog === undefined ? null : prepareScriptHost(
      config,
      options.catalog,
      { grant, interpreters, environ, isolation, folderVerdicts, getEnv: options.getEnv },
    );
    return {
      facts,
      run: programs,
      groupKiller,
      refusal: probed.refusal ?? null,
      containment: described === null || options.catalog === undefined
        ? []
        : containmentOf(described.plan, options.catalog, isolation),
      dataDirProblem: isolation.mode === "sandbox"
        ? isolation.sandbox?.dataDirProblem ?? null
        : null,
      // A cache inside the mounted data folder is hidden from every sandbox (a `hide` mount);
      // one no hide mount covers would be writable by scripts.
      indexCacheExposed: isolation.mode === "sandbox" &&
        (protectedFolders.indexCache ?? []).some(
          (cache) =>
            isolation.sandbox?.dataDir != null && isWithin(isolation.sandbox.dataDir, cache) &&
            !(isolation.sandbox.dataHidden ?? []).some((hidden) => isWithin(hidden, cache)),
        ),
      grantProblems: described === null ? [] : described.plan.problems
        .filter((problem) => problem.reason === "grant")
        .map((problem) => `${problem.severity}: ${problem.detail}`),
      grant,
      folderVerdicts,
      mayRun,
      warning: grant.error !== undefined
        ? `no script will run: ${grant.error}`
        : refused
        ? `no script will run: ${environ.note} (set MCP_SKILL_ALLOW_UNSCRUBBED=1 to accept that)`
        : mayRun && isolation.mode === "process-group" && config.options.http !== null &&
            config.httpToken !== null && config.options.httpTokenFile === null
        ? TOKEN_IN_ENVIRONMENT
        : mayRun && isolation.mode === "sandbox" && config.options.http !== null
        ? tokenFileInSystemMount(config.options.httpTokenFile)
        : null,
    };
  };
  if (options.deferProbe === true && probeDecidesOnlyFacts(config, grant, scrub.scrubbed)) {
    // Nothing the probe finds can change the run list, the refusal, the warnings or the index
    // cache here: only the isolation the tools report, which the worker waits for (issue 13).
    return {
      ...decide(PENDING_ISOLATION),
      pendingIsolation: async () => decide(await probe()).facts,
    };
  }
  return { ...decide(await probe()), pendingIsolation: null };
}

/**
 * Whether the isolation probe's outcome can decide nothing but the isolation
 * the tools report (`facts.isolation`, and `facts.permittedPrograms`, which no
 * plan reads when nothing may run), so `serve` may probe after its first
 * answer: the grant lets nothing run whatever the probe finds (no usable row,
 * or `MCP_CONFIRM_MODE=refuse`), the owner asked for no mode (only
 * `--isolation=sandbox` can refuse the start), the environ scrub worked (else
 * the environ status depends on the mode), and no host `MCP_DATA_DIR` (a
 * sandbox's data folder decides the index cache and a start-up line). Pure.
 *
 * @param config The configuration.
 * @param grant The grant read from it.
 * @param isScrubbed Whether the environ scrub overwrote the original block.
 * @returns True when the probe may wait.
 */
export function probeDecidesOnlyFacts(
  config: Config,
  grant: Grant,
  isScrubbed: boolean,
): boolean {
  return (!grantsAnything(grant) || config.scripts.confirmMode === "refuse") &&
    config.options.isolation === "auto" && isScrubbed && config.scripts.dataDir === null;
}

/**
 * The isolation in the facts a deferred probe's start hands the worker: never
 * shown, since every tool call waits for the probed facts first (the note says
 * so should one ever be read).
 */
export const PENDING_ISOLATION: Isolation = Object.freeze({
  mode: "process-group",
  unsharePath: null,
  launcher: null,
  note: "The isolation probe has not finished yet",
});

/**
 * The start-up warning for an HTTP bearer token file inside a folder every
 * sandbox mounts (`/usr`, `/lib`..., the fixed `/etc` entries): any granted
 * script can read it and print it into its answer (review r13). A warning,
 * not a refusal: the token still guards the server, and who runs scripts
 * already holds it; the owner is told where to move it.
 *
 * @param tokenFile `--http-token-file` as given, or null.
 * @returns One line (without the `skillgate: ` prefix), or null.
 *
 * Requires `--allow-read` (realpath of the file and the `/etc` entries).
 */
export function tokenFileInSystemMount(tokenFile: string | null): string | null {
  if (tokenFile === null) return null;
  const mount = systemMountHolding(resolve(tokenFile));
  if (mount === null) return null;
  return `the HTTP bearer token file lies in ${mount}, which every sandbox mounts, so ` +
    "a granted script can read it and print it; move it to a folder only you can read (such as " +
    "~/.config/skillgate/) and point --http-token-file there";
}

/**
 * Said at start-up when scripts may run without their own PID namespace and
 * the bearer token came in `SKILLGATE_HTTP_TOKEN`: skillgate overwrites its
 * own copy, but a parent started with the same environment (the container's
 * PID 1, `tini`; a shell that exported it) keeps it where any process of this
 * user can read it (`/proc/PID/environ`). Source: n8's finding on the
 * container recipe.
 */
const TOKEN_IN_ENVIRONMENT = "the HTTP bearer token came in SKILLGATE_HTTP_TOKEN and scripts run " +
  "as this user without a PID namespace of their own: skillgate's copy is overwritten, but a " +
  "parent process started with it (a container's PID 1 such as tini, a shell that exported it) " +
  "keeps it where a script can read it (/proc/PID/environ). Pass the token as a file instead " +
  "(--http-token-file or SKILLGATE_HTTP_TOKEN_FILE, e.g. a mounted secret)";

/** Each runnable script's containment, from the start-up plan. */
function containmentOf(
  plan: ScriptPlan,
  catalog: Catalog,
  isolation: Isolation,
): ScriptContainment[] {
  const found: ScriptContainment[] = [];
  for (const [name, scripts] of plan.bySkill) {
    const skill = catalog.byName.get(name);
    for (const planned of scripts) {
      if (planned.state !== "runnable" || planned.program === null || skill === undefined) continue;
      const wrapped = isolate(planned.program, [], isolation, {
        skillDir: skill.realDir,
        read: planned.read,
        write: planned.write,
        network: planned.network,
      });
      found.push({
        skill: name,
        script: planned.script,
        isolation: isolation.mode,
        namespaces: wrapped.layout?.namespaces ??
          (isolation.mode === "pid-namespace" ? ["user", "pid", "mount"] : []),
        network: wrapped.layout?.network ?? true,
        mounts: wrapped.layout?.mounts ?? [],
      });
    }
  }
  return found;
}
