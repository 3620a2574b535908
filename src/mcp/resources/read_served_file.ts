/**
 * Reading one whole served file through the path gate, for `resources/read`
 * and `prompts/get`: the same gate as `skill_file`, so a file swapped for a
 * symlink after listing is refused when it is read.
 *
 * @module
 */

import { readWhole } from "../../files/bounded_read.ts";
import { resolveSkillFile } from "../../files/path_gate.ts";
import type { Skill } from "../../skills/skill.ts";

/**
 * Resolves `path` inside the skill's real folder and reads the whole file,
 * refusing one over `maxBytes` before opening it (and again at open time, if
 * it grew in between).
 *
 * @param skill The served skill (its `realDir` bounds the read).
 * @param path The relative path, as listed or as the client sent it.
 * @param maxBytes Largest size accepted, in bytes.
 * @returns The file's exact bytes.
 * @throws {PathRefusedError} When the gate refuses the path (bad string,
 *   outside the skill, missing, not a regular file, changed after resolving).
 * @throws {FileTooLargeError} (from `bounded_read.ts`) When the open file is over `maxBytes`.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: the path rule in `/work/shared/notes/anchors.md`.
 */
export async function readServedFile(
  skill: Skill,
  path: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const file = await resolveSkillFile(skill.realDir, path);
  // readWhole refuses an over-cap file from the size of the verified open file; the size the
  // gate saw before opening is never reported (a swapped folder could make it another file's).
  return await readWhole(file, maxBytes);
}
