/**
 * The `resources/list` entry of one skill file.
 *
 * @module
 */

import { mediaTypeFor } from "../../files/media_type.ts";
import type { Skill, SkillFile } from "../../skills/skill.ts";
import type { Resource } from "../sdk.ts";
import { skillFileUri } from "./skill_uri.ts";

/** Priority of a skill's SKILL.md: the file to read first. */
export const SKILL_MD_PRIORITY = 1;
/** Priority of every other file of a skill. */
export const SUPPORTING_FILE_PRIORITY = 0.5;

/**
 * Describes a skill file as an MCP resource.
 *
 * @param skill The skill the file belongs to.
 * @param file One of `skill.files`.
 * @returns `{uri, name, title, mimeType, size, annotations}`: `name` is the
 *   skill's name for SKILL.md (SEP-2640 asks for the frontmatter name, which a
 *   listed skill shares with its folder) and `<skill>/<path>` otherwise; `annotations` carry audience `["assistant"]`, priority
 *   {@linkcode SKILL_MD_PRIORITY} for SKILL.md and
 *   {@linkcode SUPPORTING_FILE_PRIORITY} otherwise, and `lastModified` (ISO
 *   8601, UTC) when the modification time is known. SKILL.md also carries the
 *   skill's description.
 *
 * Source: MCP 2025-11-25, "Resources" (resource fields and annotations).
 */
export function describeSkillFile(skill: Skill, file: SkillFile): Resource {
  const isSkillMd = file.path === skill.skillMdFile;
  const annotations: NonNullable<Resource["annotations"]> = {
    audience: ["assistant"],
    priority: isSkillMd ? SKILL_MD_PRIORITY : SUPPORTING_FILE_PRIORITY,
  };
  if (file.mtimeMs !== null && Number.isFinite(file.mtimeMs)) {
    annotations.lastModified = new Date(file.mtimeMs).toISOString();
  }
  const resource: Resource = {
    uri: skillFileUri(skill.name, file.path),
    name: isSkillMd ? skill.name : `${skill.name}/${file.path}`,
    title: isSkillMd ? `${skill.name}: instructions (${file.path})` : `${skill.name}: ${file.path}`,
    mimeType: mediaTypeFor(file.path),
    size: file.size,
    annotations,
  };
  if (isSkillMd) resource.description = skill.description;
  return resource;
}
