/**
 * A skill's SKILL.md body, read when asked (issue 13, "lazy bodies"): the
 * catalog keeps what listing needs (frontmatter, file list), not the bodies,
 * so a large catalog stays small. The body is read through the gated open,
 * exactly as the catalog build reads SKILL.md.
 *
 * @module
 */

import { readSkillMd } from "./_read_skill_md.ts";
import type { SkillCandidate } from "./discover.ts";
import { splitFrontmatter } from "./frontmatter_split.ts";
import { lastGoodRefusal } from "./last_good.ts";
import { reportStaleSkill } from "../refresh/stale_hint.ts";
import type { Skill } from "./skill.ts";

/** A body read now, or why it could not be. */
export type SkillBody =
  | {
    readonly ok: true;
    readonly body: string;
    readonly truncated: boolean;
    /**
     * When cut: the byte offset in SKILL.md where the text read ends, so a
     * reader can go on from there (`skill_file` with that offset).
     */
    readonly nextOffset?: number;
  }
  | {
    readonly ok: false;
    readonly detail: string;
    /**
     * True when the skill is kept at its last good version and its SKILL.md is not served
     * until fixed (`last_good.ts`); false when it could not be read now (changed on disk).
     */
    readonly isLastGood: boolean;
  };

/**
 * Reads the body of a skill's SKILL.md now: everything after the closing
 * `---` line, within the read cap. A skill that holds its body in memory (a
 * catalog built by tests) answers with it.
 *
 * @param skill The skill from the current snapshot.
 * @param maxSkillMdBytes The SKILL.md read cap in bytes (the catalog's own).
 * @returns The body and whether it was cut, or why SKILL.md cannot be read
 *   now (it changed into something not served; live refresh will report it),
 *   or why it is not served (a skill kept at its last good version: never the
 *   broken file on disk now, see `last_good.ts`).
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function readSkillBody(skill: Skill, maxSkillMdBytes: number): Promise<SkillBody> {
  const refusal = lastGoodRefusal(skill, skill.skillMdFile);
  if (refusal !== null) return { ok: false, detail: refusal, isLastGood: true };
  if (skill.body !== undefined) {
    return { ok: true, body: skill.body, truncated: skill.bodyTruncated };
  }
  const place = {
    name: skill.name,
    baseName: skill.baseName ?? skill.name,
    dir: skill.dir,
    realDir: skill.realDir,
    root: skill.root,
    skillMdFile: skill.skillMdFile,
    entries: [],
  } satisfies SkillCandidate;
  const read = await readSkillMd(place, maxSkillMdBytes);
  if (!read.ok) {
    // Listed and not readable now: its change may have left no watcher event (`stale_hint.ts`).
    reportStaleSkill(skill);
    return { ok: false, detail: read.problem.detail, isLastGood: false };
  }
  const split = splitFrontmatter(read.text, {
    readCapBytes: read.truncated ? maxSkillMdBytes : null,
  });
  if (!split.ok) return { ok: false, detail: split.detail, isLastGood: false };
  if (!read.truncated) return { ok: true, body: split.body, truncated: false };
  const nextOffset = new TextEncoder().encode(read.text).length;
  return { ok: true, body: split.body, truncated: true, nextOffset };
}

/**
 * {@linkcode readSkillBody}, or the empty text when SKILL.md cannot be read
 * now (the search index and snippets: a skill that changed is re-indexed by
 * the next refresh).
 *
 * @param skill The skill.
 * @param maxSkillMdBytes The SKILL.md read cap in bytes.
 * @returns The body, or "".
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function skillBodyText(skill: Skill, maxSkillMdBytes: number): Promise<string> {
  const read = await readSkillBody(skill, maxSkillMdBytes);
  return read.ok ? read.body : "";
}
