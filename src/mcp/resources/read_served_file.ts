/**
 * Reading one whole served file through the path gate, for `resources/read`
 * and `prompts/get`: the same gate as `skill_file`, so a file swapped for a
 * symlink after listing is refused when it is read. Both hand the bytes on
 * as resource contents, built here the one way.
 *
 * @module
 */

import { readWhole } from "../../files/bounded_read.ts";
import { PathRefusedError, resolveSkillFile } from "../../files/path_gate.ts";
import { lastGoodRefusal } from "../../skills/last_good.ts";
import { decodeStrictUtf8, encodeBase64 } from "../../files/text.ts";
import type { Skill } from "../../skills/skill.ts";
import { reportStaleSkill } from "../../refresh/stale_hint.ts";
import { findListedFile } from "./served_file.ts";

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
 *   outside the skill, missing, not a regular file, changed after resolving),
 *   or (`not-found`) when it is the SKILL.md of a skill kept at its last good
 *   version, which no door serves (`src/skills/last_good.ts`).
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
  const refusal = lastGoodRefusal(skill, path);
  if (refusal !== null) throw new PathRefusedError("not-found", refusal);
  let file;
  try {
    file = await resolveSkillFile(skill.realDir, path);
  } catch (error) {
    // A listed file refused now: its change may have left no watcher event (`stale_hint.ts`).
    if (error instanceof PathRefusedError && findListedFile(skill, path) !== null) {
      reportStaleSkill(skill);
    }
    throw error;
  }
  // readWhole refuses an over-cap file from the size of the verified open file; the size the
  // gate saw before opening is never reported (a swapped folder could make it another file's).
  return await readWhole(file, maxBytes);
}

/** Resource contents of a served file: text when it is text, else base64. */
export type ServedContents =
  | { readonly uri: string; readonly mimeType: string; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly blob: string };

/**
 * Wraps a served file's exact bytes as resource contents.
 *
 * @param uri The file's canonical `skill://` URI.
 * @param mimeType The media type to declare.
 * @param bytes The file's exact bytes.
 * @returns `{uri, mimeType, text}` when the bytes decode strictly as UTF-8
 *   and hold no NUL (a BOM is kept), else `{uri, mimeType, blob}` with the
 *   standard base64 of the bytes.
 *
 * Source: MCP 2025-11-25, "Resources" (text or blob contents); SEP-2640
 * (`resources/read` returns the exact bytes).
 */
export function servedContents(uri: string, mimeType: string, bytes: Uint8Array): ServedContents {
  const text = decodeStrictUtf8(bytes);
  return text === null ? { uri, mimeType, blob: encodeBase64(bytes) } : { uri, mimeType, text };
}
