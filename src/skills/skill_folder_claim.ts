/**
 * The check of a worker's claim "this is the folder of skill NAME": the one
 * rule the declaration reader (`declared_env.ts`) and the trusted part's
 * settings-view writer (`src/config/file/view_override_write.ts`) apply,
 * reading nothing but the folder's real path.
 *
 * @module
 */

import { baseName, isInside } from "./_path.ts";
import type { DeclarationBase } from "./declared_env.ts";
import { PREFIX_SEPARATOR } from "./prefix_separator.ts";

/**
 * The real path of the folder a served skill name can only be at, when the
 * folder a worker named is it, else null: an absolute path whose real path
 * lies inside one of `bases` carrying the name's prefix (the base itself only
 * when it is a root), and whose last segment is the name (without its
 * prefix), as discovery serves skills. Nothing is read but the real path.
 * The one check of a worker's "this skill's folder" claim (the declaration
 * reader, a settings view's write).
 *
 * @param skill The served name (`NAME`, or `PREFIX__NAME`).
 * @param dir The folder as the worker has it (not trusted).
 * @param bases Where skill folders may lie, each with its prefix.
 * @returns The folder's real path, or null.
 *
 * Requires `--allow-read` on the folder (realpath).
 */
export async function skillFolderOf(
  skill: string,
  dir: string,
  bases: readonly DeclarationBase[],
): Promise<string | null> {
  if (!dir.startsWith("/") || dir.includes("\0")) return null;
  let realDir: string;
  try {
    realDir = await Deno.realPath(dir);
  } catch {
    return null;
  }
  const at = skill.indexOf(PREFIX_SEPARATOR);
  const prefix = at < 0 ? null : skill.slice(0, at);
  const folderName = at < 0 ? skill : skill.slice(at + PREFIX_SEPARATOR.length);
  const inBase = bases.some((base) =>
    base.prefix === prefix && isInside(realDir, base.path) &&
    (realDir !== base.path || base.isRoot === true)
  );
  if (!inBase) return null;
  if (folderName === "" || baseName(realDir) !== folderName) return null;
  return realDir;
}
