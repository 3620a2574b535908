/**
 * The trusted part's rule for releasing environment values to one run
 * (issue 13): the worker builds the catalog, so the trusted part no longer
 * knows what skills declare, and it does not take the worker's word for it.
 * A value leaves the trusted part only for a name that
 *
 * 1. the script's own declaration lists, as the declaration reader
 *    (`declared_env_entry.ts`, an isolate that reads the roots only and never
 *    sees client input) reads it afresh from the skill's SKILL.md: these are
 *    exactly the names the run's preview lists and the user confirms; and
 * 2. the owner allows: with `MCP_SKILL_RUN` rows (hosted or standalone), the
 *    names the rows give that exact (skill, script); standalone without a
 *    grant (the declarations stand), any declared name but skillgate's own
 *    settings (`MCP_*`, `SKILLGATE_*`) and the loader variables; hosted
 *    without a grant, a placeholder grant, an unreadable grant: none.
 *
 * A worker that claims a declaration the skill lacks gets nothing more: the
 * declaration, not the claim, bounds the answer. The base names (`PATH`,
 * `HOME`, `LANG`, `TZ`, `TMPDIR`) are not secrets and are handed over at start
 * in the script facts.
 *
 * @module
 */

import { type Grant, rowInForce } from "../scripts/grant.ts";
import type { DeclaredEnvRequest } from "../skills/declared_env.ts";
import { BASE_ENV_NAMES } from "../scripts/script_env.ts";
import { MAX_ENV_REQUEST_NAMES } from "./messages.ts";

/** Names standalone-without-a-grant never releases, declared or not: skillgate's own settings and loaders. */
const NEVER_RELEASED = /^(MCP_|SKILLGATE_|LD_|DYLD_)/;

/**
 * Which of the asked names may be released for one run, given what the
 * script declares.
 *
 * @param grant The grant the trusted part parsed from its own environment.
 * @param request The skill's directory name, the script as declared, and the
 *   names the worker asks for (more than `MAX_ENV_REQUEST_NAMES`: none).
 * @param declaredEnv The names the script's own declaration lists, as the
 *   declaration reader read them (empty when it declares none or is not
 *   declared).
 * @param refusedFolder Why the start-up check refused the folders of the
 *   grant row at an index (`sandbox/grant_folders.ts`), or undefined.
 *   @default no row refused
 * @returns The releasable names, distinct, in the order asked: with
 *   `MCP_SKILL_RUN` rows, only names of the ONE row in force for (skill,
 *   script) by the plan's own rule (`rowInForce` in `scripts/grant.ts`: the
 *   first row whose names the script all declares and whose folders were not
 *   refused); a row the plan refuses releases nothing (review r12, F1).
 *
 * Source: issue 13 ("the trusted part releases environment values per run,
 * only for names the grant names").
 */
export function releasableNames(
  grant: Grant,
  request: { skill: string; script: string; names: readonly string[] },
  declaredEnv: readonly string[],
  refusedFolder: (index: number) => string | undefined = () => undefined,
): string[] {
  if (!mayRelease(grant, request)) return [];
  let allowed: (name: string) => boolean;
  if (grant.rows === null) {
    allowed = (name) => !NEVER_RELEASED.test(name);
  } else {
    const inForce = rowInForce(grant.rows, request, declaredEnv, refusedFolder);
    if (inForce === null) return [];
    allowed = (name) => inForce.row.env.includes(name);
  }
  const released: string[] = [];
  for (const name of request.names) {
    if (BASE_ENV_NAMES.includes(name) || released.includes(name)) continue;
    if (
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && declaredEnv.includes(name) && allowed(name)
    ) {
      released.push(name);
    }
  }
  return released;
}

/**
 * Whether the owner's rule could release anything for (skill, script) at
 * all, before the declaration is read: a grant that stands from the
 * declarations (standalone, no `MCP_SKILL_RUN`), or a row naming the pair.
 */
function mayRelease(
  grant: Grant,
  request: { skill: string; script: string; names: readonly string[] },
): boolean {
  if (request.names.length === 0 || request.names.length > MAX_ENV_REQUEST_NAMES) return false;
  if (grant.from === "unsubstituted" || grant.from === "blank" || grant.from === "hosted-default") {
    return false;
  }
  if (grant.rows === null) return grant.from === "declaration";
  return grant.rows.some((row) => row.skill === request.skill && row.script === request.script);
}

/** One run's environment request, as the worker sends it. */
export interface EnvReleaseRequest extends DeclaredEnvRequest {
  /** The names the worker asks for (more than `MAX_ENV_REQUEST_NAMES`: none). */
  readonly names: readonly string[];
  /**
   * A preview's question: which names would be released, each value withheld
   * (the empty string). @default false
   */
  readonly namesOnly?: boolean;
}

/**
 * The values released for one run: {@linkcode releasableNames} that the
 * script's declaration lists (asked of the declaration reader only when the
 * owner's rule leaves a name to release), each looked up now (an unset name
 * is absent).
 *
 * @param grant The trusted part's grant.
 * @param request Skill, script, the skill folder and the names asked for.
 * @param sources `getEnv`: the trusted part's environment lookup (after the
 *   scrub, values are still readable through `Deno.env`); `declaredEnv`: the
 *   declaration reader (`declared_env_host.ts`); `refusedFolder`: the
 *   start-up verdict of a grant row's folders (undefined: not refused).
 * @returns Name to value, frozen; with `request.namesOnly`, name to the empty
 *   string (which names a run would get, no value leaves).
 */
export async function releaseEnv(
  grant: Grant,
  request: EnvReleaseRequest,
  sources: {
    readonly getEnv: (name: string) => string | undefined;
    readonly declaredEnv: (request: DeclaredEnvRequest) => Promise<readonly string[]>;
    readonly refusedFolder?: (index: number) => string | undefined;
  },
): Promise<Readonly<Record<string, string>>> {
  const values: Record<string, string> = {};
  if (!mayRelease(grant, request)) return Object.freeze(values);
  const declared = await sources.declaredEnv(request);
  for (const name of releasableNames(grant, request, declared, sources.refusedFolder)) {
    const value = sources.getEnv(name);
    if (value !== undefined) values[name] = request.namesOnly === true ? "" : value;
  }
  return Object.freeze(values);
}
