/**
 * The trusted part's rule for releasing environment values to one run
 * (issue 13): the worker builds the catalog, so the trusted part no longer
 * knows what skills declare, and it does not take the worker's word for it.
 * A value leaves the trusted part only for a name the owner's grant gives
 * that exact (skill, script):
 *
 * - `MCP_SKILL_RUN` rows (hosted or standalone): the names in the rows for
 *   that skill and script. A worker that claims a declaration the skill
 *   lacks gets nothing more: the grant, not the claim, bounds the answer.
 * - standalone without `MCP_SKILL_RUN` (the declarations stand; the person
 *   at the terminal is the owner and confirms each run's preview, which
 *   lists these names): the names asked for, minus skillgate's own settings
 *   (`MCP_*`, `SKILLGATE_*`) and the loader variables. A compromised worker
 *   could ask for any other name of the user's own session here; set
 *   `MCP_SKILL_RUN` to bound it (README, "Environment values").
 * - hosted without a grant, a placeholder grant, an unreadable grant: none.
 *
 * The base names (`PATH`, `HOME`, `LANG`, `TZ`, `TMPDIR`) are not secrets and
 * are handed over at start in the script facts.
 *
 * @module
 */

import type { Grant } from "../scripts/grant.ts";
import { BASE_ENV_NAMES } from "../scripts/script_env.ts";
import { MAX_ENV_REQUEST_NAMES } from "./messages.ts";

/** Names standalone-without-a-grant never releases: skillgate's own settings and loaders. */
const NEVER_RELEASED = /^(MCP_|SKILLGATE_|LD_|DYLD_)/;

/**
 * Which of the asked names may be released for one run.
 *
 * @param grant The grant the trusted part parsed from its own environment.
 * @param request The skill's directory name, the script as declared, and the
 *   names the worker asks for (more than `MAX_ENV_REQUEST_NAMES`: none).
 * @returns The releasable names, distinct, in the order asked.
 *
 * Source: issue 13 ("the trusted part releases environment values per run,
 * only for names the grant names").
 */
export function releasableNames(
  grant: Grant,
  request: { skill: string; script: string; names: readonly string[] },
): string[] {
  if (request.names.length > MAX_ENV_REQUEST_NAMES) return [];
  if (grant.from === "unsubstituted" || grant.from === "hosted-default") return [];
  let allowed: (name: string) => boolean;
  if (grant.rows === null) {
    if (grant.from !== "declaration") return [];
    allowed = (name) => !NEVER_RELEASED.test(name);
  } else {
    const named = new Set<string>();
    for (const row of grant.rows) {
      if (row.skill === request.skill && row.script === request.script) {
        row.env.forEach((name) => named.add(name));
      }
    }
    allowed = (name) => named.has(name);
  }
  const released: string[] = [];
  for (const name of request.names) {
    if (BASE_ENV_NAMES.includes(name) || released.includes(name)) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && allowed(name)) released.push(name);
  }
  return released;
}

/**
 * The values released for one run: {@linkcode releasableNames}, each looked
 * up now (an unset name is absent).
 *
 * @param grant The trusted part's grant.
 * @param request Skill, script and the names asked for.
 * @param getEnv The trusted part's environment lookup (after the scrub, values
 *   are still readable through `Deno.env`).
 * @returns Name to value, frozen.
 */
export function releaseEnv(
  grant: Grant,
  request: { skill: string; script: string; names: readonly string[] },
  getEnv: (name: string) => string | undefined,
): Readonly<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const name of releasableNames(grant, request)) {
    const value = getEnv(name);
    if (value !== undefined) values[name] = value;
  }
  return Object.freeze(values);
}
