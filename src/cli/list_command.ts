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
 * beyond the roots (discovery never follows a link out of a root), executes
 * nothing and serves nothing, and avoids a second message protocol between
 * the two parts for one-shot output.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { listSkills, type SkillListAnswer } from "../mcp/tools/skill_list.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { type CommandIo, EXIT_USAGE } from "./command_io.ts";
import { renderListTable } from "./list_table.ts";
import { usableRoots } from "./usable_roots.ts";

/**
 * Runs `skillgate list`: checks the roots, builds the catalog and prints it.
 * Requires `--allow-read` on the roots and `--allow-env` for `LOG_TOKENS`
 * and `LOG_STREAM` (read by `npm:yaml`); the trusted part holds both.
 *
 * @param config The frozen configuration (`roots`, `caps`, `hosted`, `options.json`).
 * @param io Outputs, terminal width and working directory.
 * @returns 0 once printed (problems in skills do not change it), or 2 when
 *   a root is missing, unreadable or not a folder.
 */
export async function runListCommand(config: Config, io: CommandIo): Promise<number> {
  if ((await usableRoots(config.roots, io)) === null) return EXIT_USAGE;
  const catalog = await buildCatalog(config.roots, config.caps);
  const answer = fullListAnswer(catalog, config.hosted);
  if (config.options.json) {
    await io.writeOut(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    await io.writeOut(renderListTable(answer, { columns: io.columns }));
  }
  return 0;
}

/**
 * The `skill_list` answer for a whole catalog: every skill (no paging, so no
 * `nextCursor`) and every problem, errors first, each group in discovery
 * order. Pure.
 *
 * @param catalog The snapshot.
 * @param hosted Whether a host runner started skillgate.
 * @returns The answer in the `skill_list` tool's output shape.
 */
export function fullListAnswer(catalog: Catalog, hosted: boolean): SkillListAnswer {
  const answer = listSkills(catalog, {
    query: "",
    after: null,
    limit: Math.max(1, catalog.skills.length),
    hosted,
  });
  const errors = catalog.problems.filter((problem) => problem.severity === "error");
  const warnings = catalog.problems.filter((problem) => problem.severity !== "error");
  return { ...answer, problems: [...errors, ...warnings] };
}
