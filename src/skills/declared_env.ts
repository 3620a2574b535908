/**
 * What one script of one skill declares about its environment, read afresh
 * from its SKILL.md through the file gate. The declaration reader isolate
 * (`src/sandbox/declared_env_entry.ts`) runs it for the trusted part, so the
 * environment values a run receives are bounded by the skill's own
 * declaration, never by what the serving worker claims (issue 13).
 *
 * @module
 */

import { parseDeclaration } from "../scripts/declaration.ts";
import { readSkillMd } from "./_read_skill_md.ts";
import { PREFIX_SEPARATOR } from "./discover.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { skillFolderOf } from "./skill_folder_claim.ts";

/** One question: which names does this script of this skill declare? */
export interface DeclaredEnvRequest {
  /** The skill's served name (`NAME`, or `PREFIX__NAME` for a prefixed root). */
  readonly skill: string;
  /** The script path exactly as declared. */
  readonly script: string;
  /** The skill folder's real path, as the serving worker has it (checked here, not trusted). */
  readonly dir: string;
}

/**
 * A folder skill folders may lie inside, and the prefix its skills are served
 * under (`PREFIX__NAME`; null: unprefixed), so a folder of one root is never
 * read as the skill of another.
 */
export interface DeclarationBase {
  /** The folder's real path. */
  readonly path: string;
  /** The prefix its skills carry, or null for none. */
  readonly prefix: string | null;
  /**
   * Whether the folder is a local root, which may itself be a skill (a root
   * holding SKILL.md is served as that skill, README "Roots"). The sources
   * cache is never one. @default false
   */
  readonly isRoot?: boolean;
}

/**
 * Reads the skill's SKILL.md through the gate and returns the environment
 * names its `mcp-host` block declares for that script. Anything that does not
 * hold (a folder outside every base whose prefix is the skill's, a folder
 * whose name is not the skill's,
 * an unreadable or malformed SKILL.md, no such script) yields no name: the
 * answer only ever narrows.
 *
 * @param request The skill, the script and the folder to check.
 * @param options `bases`: the roots' real paths (and the sources cache's, once
 *   per remote prefix), each with its prefix: the folder must lie inside one
 *   whose prefix is the skill's; `maxSkillMdBytes`: the SKILL.md read cap,
 *   the catalog's own, so both see the same frontmatter.
 * @returns The declared names, distinct, in declared order (empty when none).
 *
 * Requires `--allow-read` on the roots; the gate asks the trusted part where
 * each opened file really is.
 *
 * Source: issue 13 ("decide ... without the trusted part parsing skills and
 * without trusting what the worker reports"); README, "Declaration".
 */
export async function readDeclaredEnv(
  request: DeclaredEnvRequest,
  options: { readonly bases: readonly DeclarationBase[]; readonly maxSkillMdBytes: number },
): Promise<readonly string[]> {
  const realDir = await skillFolderOf(request.skill, request.dir, options.bases);
  if (realDir === null) return [];
  const at = request.skill.indexOf(PREFIX_SEPARATOR);
  const folderName = at < 0 ? request.skill : request.skill.slice(at + PREFIX_SEPARATOR.length);
  // As discovery picks it: SKILL.md when present, else the lowercase name.
  let skillMdFile = "SKILL.md";
  try {
    await Deno.lstat(`${realDir}/SKILL.md`);
  } catch {
    skillMdFile = "skill.md";
  }
  const read = await readSkillMd({
    name: request.skill,
    baseName: folderName,
    dir: realDir,
    realDir,
    root: realDir,
    skillMdFile,
    entries: [],
  }, options.maxSkillMdBytes);
  if (!read.ok) return [];
  const parsed = parseFrontmatter(read.text);
  if (!parsed.ok) return [];
  const declared = parseDeclaration(parsed.frontmatter).declaration;
  const script = declared?.run.find((entry) => entry.script === request.script);
  return script === undefined ? [] : [...new Set(script.env)];
}
