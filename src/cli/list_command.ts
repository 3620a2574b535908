/**
 * `skillgate list [ROOT...] [--json]`: the catalog and its problems, as a
 * table for a person or as JSON for scripts (the `skill_list` tool's shapes,
 * every skill and every problem on one page).
 *
 * Where it runs: in the trusted part's own process, not in the worker. The
 * worker exists to contain a confused deputy: code that acts on a remote
 * client's requests. `list` has no client; its only inputs are the owner's
 * own command line and the files under the roots the owner named, which the
 * owner can read anyway, and its output goes back to the owner. Building the
 * catalog here reuses the very discovery the worker runs, reads nothing
 * beyond the roots (discovery never follows a link out of a root), runs no
 * skill script and serves nothing, and avoids a second message protocol
 * between the two parts for one-shot output.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { listSkills, type SkillListAnswer } from "../mcp/tools/skill_list.ts";
import { bootScripts } from "../sandbox/script_boot.ts";
import { createScriptService, type ScriptService } from "../scripts/service.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { applyOverlay, type SkillOverrides } from "../skills/overrides.ts";
import { type CommandIo, EXIT_USAGE } from "./command_io.ts";
import { renderListTable } from "./list_table.ts";
import { usableRoots } from "./usable_roots.ts";
import { prepareRemote } from "../remote/remote_serve.ts";
import { jsonForTerminal } from "./terminal_text.ts";

/**
 * Runs `skillgate list`: checks the roots, does the script start-up work
 * `serve` does (so grant, interpreters and each skill's scripts read the
 * same), builds the catalog and prints it. Requires `--allow-all`, as the
 * trusted part (see `bootScripts`).
 *
 * @param config The frozen configuration (`roots`, `caps`, `hosted`, `options.json`, grant).
 * @param io Outputs, terminal width, working directory and the environment lookup.
 * @param overrides The owner's `overrides.json`, so the list shows what `serve`
 *   would serve. @default none
 * @returns 0 once printed (problems in skills do not change it), or 2 when
 *   a root is missing, unreadable or not a folder.
 */
export async function runListCommand(
  given: Config,
  io: CommandIo,
  overrides: SkillOverrides = {},
): Promise<number> {
  // Remote sources are listed from the cache as serve would start with them (no network).
  const remote = await prepareRemote(given, io.getEnv);
  if (remote !== null && "error" in remote) {
    await io.writeErr(`skillgate: ${remote.error}\n`);
    return EXIT_USAGE;
  }
  const config = remote?.config ?? given;
  const local = config.roots.filter((root) => root.from !== "remote");
  if ((await usableRoots(local, io)) === null) return EXIT_USAGE;
  const boot = await bootScripts(config, { getEnv: io.getEnv });
  if (boot.warning !== null) await io.writeErr(`skillgate: ${boot.warning}\n`);
  const scripts = createScriptService(config, boot.facts, { killer: boot.groupKiller });
  const catalog = applyOverlay(await buildCatalog(config.roots, config.caps), {
    overrides,
    problems: [],
  });
  const answer = fullListAnswer(catalog, { hosted: config.hosted, scripts });
  if (config.options.json) {
    await io.writeOut(`${jsonForTerminal(answer)}\n`);
  } else {
    await io.writeOut(renderListTable(answer, { columns: io.columns }));
  }
  return 0;
}

/**
 * The `skill_list` answer for a whole catalog: every skill (no paging, so no
 * `nextCursor`) and every problem (the catalog's, then the script plan's),
 * errors first, each group in the order found. Pure.
 *
 * @param catalog The snapshot.
 * @param options Whether a host runner started skillgate, and the script
 *   service (adds the grant, each skill's scripts and grant problems).
 * @returns The answer in the `skill_list` tool's output shape, unredacted:
 *   this is the owner's own view, so grant problems and the grant's error keep
 *   their full detail (rows, skills, scripts, environment names).
 */
export function fullListAnswer(
  catalog: Catalog,
  options: { readonly hosted: boolean; readonly scripts?: ScriptService },
): SkillListAnswer {
  return listSkills(catalog, {
    query: "",
    after: null,
    limit: Math.max(1, catalog.skills.length),
    hosted: options.hosted,
    ...(options.scripts === undefined ? {} : { scripts: options.scripts }),
    isOwnerView: true,
    maxProblems: Number.POSITIVE_INFINITY,
  });
}
