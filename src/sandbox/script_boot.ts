/**
 * The trusted part's start-up work for running scripts, in order: scrub the
 * original environment block (first, before anything else reads it), look
 * up the interpreters, probe whether a PID namespace works, judge the
 * declarations present now against the grant, and so decide the worker's run
 * permission and the environment values scripts may receive. Also creates
 * the killer that answers the worker's process-group requests.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { grantsAnything, parseGrant } from "../scripts/grant.ts";
import { prepareScriptHost, type ScriptHostFacts } from "../scripts/host_facts.ts";
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
import { locateConfig } from "../config/file/load_config.ts";
import { checkGrantFolders, protectedFoldersOf } from "../scripts/sandbox/grant_folders.ts";
import { type EnvironStatus, isEnvironRefused } from "../scripts/plan.ts";
import type { GroupKiller } from "../scripts/runner/group_killer.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { scrubEnviron } from "./environ_scrub.ts";
import { closeInheritedOnExec } from "./inherited_fds.ts";
import { makeNonDumpable } from "./non_dumpable.ts";
import { createGroupKiller } from "./group_killer.ts";
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
   * Programs the scripts granted at start-up need, each with its reason
   * (empty when nothing can run); `worker_set.ts` composes the worker's run
   * permission from them.
   */
  readonly run: readonly PermittedProgram[];
  readonly groupKiller: GroupKiller;
  /**
   * One line for stderr when every script is refused at start-up (a script
   * variable left as a placeholder; hosted without a scrub), else null.
   */
  readonly warning: string | null;
  /**
   * Each script runnable at start-up with what contains it: its isolation
   * mode, namespaces, network and (sandbox) mounts, for `skillgate permissions`.
   */
  readonly containment: readonly ScriptContainment[];
  /** The start-up plan's `grant` problems, one line each, for the owner's terminal. */
  readonly grantProblems: readonly string[];
  /**
   * In a sandbox, why the host's `MCP_DATA_DIR` is not mounted (missing, or
   * refused by the grant folders' check: `/`, a home, a root, skillgate's
   * own folders), for the owner's terminal; else null. Names no path.
   */
  readonly dataDirProblem: string | null;
  /**
   * Why skillgate must not start (the owner demanded `--isolation=sandbox`
   * and this host has none: the reason and what to install), else null.
   */
  readonly refusal: string | null;
  /**
   * Hands on the catalog built here to judge the declarations, once: the
   * first call returns it and drops this boot's reference (the trusted part
   * keeps no copy of a large catalog once the worker has it); later calls,
   * and every call when nothing can run (none was built), return null. The
   * worker starts from it instead of building the same catalog again, so
   * each skill is loaded once at start-up.
   */
  takeCatalog(): Catalog | null;
}

/**
 * Does the start-up work. The catalog is only built here when the grant can
 * let something run (not hosted without a grant, not an unreadable or empty
 * grant), so a server that runs nothing parses no skill in the trusted part.
 * When it is built, it is handed on (`takeCatalog`) so the worker can start
 * from it.
 *
 * @param config The configuration.
 * @param options An environment lookup (after the scrub values are still
 *   readable) and the roots' real paths (grants may not name them).
 * @returns The facts for the worker, its run permission, the killer, a
 *   warning, and the one-time hand-over of the catalog built.
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
  },
): Promise<ScriptBoot> {
  const scrub = scrubEnviron();
  // After the scrub (it writes /proc/self/mem), before any script can start.
  const dumpable = makeNonDumpable();
  // Descriptors skillgate inherited (beyond 0-2) must never reach a script.
  closeInheritedOnExec();
  const interpreters = lookUpInterpreters(options.getEnv("PATH"));
  const groupKiller = createGroupKiller();
  const protectedFolders = protectedFoldersOf({
    roots: [...(options.rootRealPaths ?? []), ...config.roots.map((root) => root.path)],
    installDir: new URL("../..", import.meta.url).pathname,
    getEnv: options.getEnv,
    configPath: locateConfig(config, options.getEnv)?.path ?? null,
  });
  const probed = await probeIsolation({
    shPath: interpreters.sh.available ? interpreters.sh.path : null,
    killer: groupKiller,
    requested: config.options.isolation as IsolationRequest,
    interpreterPrograms: Object.values(interpreters).flatMap((entry) =>
      entry.available && entry.path !== null ? [entry.path] : []
    ),
    protectedFolders,
    dataDir: config.scripts.dataDir,
  });
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
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  const folderVerdicts = checkGrantFolders(grant, protectedFolders);
  let built: Catalog | null = grantsAnything(grant) && probed.refusal === undefined
    ? await buildCatalog(config.roots, config.caps)
    : null;
  const catalog: Catalog = built ??
    { roots: config.roots, skills: [], byName: new Map(), problems: [] };
  const { facts, programs, plan } = prepareScriptHost(config, catalog, {
    grant,
    interpreters,
    environ,
    isolation,
    folderVerdicts,
    getEnv: options.getEnv,
  });
  const refused = isEnvironRefused({
    hosted: config.hosted,
    environ,
    allowUnscrubbed: config.scripts.allowUnscrubbed,
  });
  return {
    facts,
    run: programs,
    groupKiller,
    refusal: probed.refusal ?? null,
    containment: containmentOf(plan, catalog, isolation),
    dataDirProblem: isolation.mode === "sandbox" ? isolation.sandbox?.dataDirProblem ?? null : null,
    grantProblems: plan.problems.filter((problem) => problem.reason === "grant")
      .map((problem) => `${problem.severity}: ${problem.detail}`),
    warning: grant.from === "unsubstituted"
      ? `no script will run: ${grant.error}`
      : refused
      ? `no script will run: ${environ.note} (set MCP_SKILL_ALLOW_UNSCRUBBED=1 to accept that)`
      : null,
    takeCatalog: () => {
      const taken = built;
      built = null;
      return taken;
    },
  };
}

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
