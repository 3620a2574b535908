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
import { probeIsolation } from "../scripts/isolation.ts";
import { type EnvironStatus, isEnvironRefused } from "../scripts/plan.ts";
import type { GroupKiller } from "../scripts/runner/group_killer.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { scrubEnviron } from "./environ_scrub.ts";
import { makeNonDumpable } from "./non_dumpable.ts";
import { createGroupKiller } from "./group_killer.ts";
import type { PermittedProgram } from "./worker_permissions.ts";

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
 * @param options An environment lookup (after the scrub values are still readable).
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
  options: { getEnv: (name: string) => string | undefined },
): Promise<ScriptBoot> {
  const scrub = scrubEnviron();
  // After the scrub (it writes /proc/self/mem), before any script can start.
  const dumpable = makeNonDumpable();
  const interpreters = lookUpInterpreters(options.getEnv("PATH"));
  const groupKiller = createGroupKiller();
  const probed = await probeIsolation({
    shPath: interpreters.sh.available ? interpreters.sh.path : null,
    killer: groupKiller,
    requested: config.options.isolation === "group" ? "group" : "auto",
  });
  // In a PID namespace skillgate's /proc is out of sight anyway; in a group it is the wall.
  const isolation = probed.mode === "process-group"
    ? { ...probed, note: `${probed.note} ${dumpable.note}.` }
    : probed;
  const environ: EnvironStatus = !scrub.scrubbed && isolation.mode === "pid-namespace"
    ? {
      scrubbed: true,
      method: "private-proc",
      note: `${scrub.note}; but every script runs in its own PID namespace, whose /proc does ` +
        "not show skillgate",
    }
    : scrub;
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  let built: Catalog | null = grantsAnything(grant)
    ? await buildCatalog(config.roots, config.caps)
    : null;
  const catalog: Catalog = built ??
    { roots: config.roots, skills: [], byName: new Map(), problems: [] };
  const { facts, programs } = prepareScriptHost(config, catalog, {
    grant,
    interpreters,
    environ,
    isolation,
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
