/**
 * A door's hint that a served skill's listing may be stale: a file the
 * catalog lists (its SKILL.md or another) was refused or could not be read as
 * listed just now. Live refresh reads that skill again. Deno 2.9.6's watcher
 * drops the events of a path that now resolves outside every watched path
 * (a file or folder swapped for an outside symlink) whenever its thread gets
 * to them after the swap, so on a busy machine such a swap may leave no
 * event; the skill-file watcher (`live_refresh.ts`) covers small catalogs,
 * and this covers any catalog the moment a client uses the skill. Only
 * doors report (never the loader: a reload that reads the same file would
 * report it again).
 *
 * @module
 */

import type { Skill } from "../skills/skill.ts";

/** Receives the folder of a skill whose listing may be stale. */
export type StaleSkillHandler = (skillDir: string) => void;

let handler: StaleSkillHandler | null = null;

/**
 * Sets where hints go (one live refresh per worker).
 *
 * @param next The handler (live refresh's: it debounces the folder as a changed path).
 * @returns Removes `next` again (a later handler set meanwhile stays).
 */
export function setStaleSkillHandler(next: StaleSkillHandler): () => void {
  handler = next;
  return () => {
    if (handler === next) handler = null;
  };
}

/**
 * Reports that a file `skill` lists was refused or could not be read as
 * listed by a door just now. No effect without live refresh (`--static`).
 *
 * @param skill The skill from the snapshot the door answered from.
 */
export function reportStaleSkill(skill: Skill): void {
  // A remote source's copy never changes in place; a new commit arrives as new roots.
  if (skill.source !== undefined) return;
  handler?.(skill.dir);
}

/**
 * Whether a door's {@linkcode reportStaleSkill} for `skill` reaches a live
 * refresh that reads it again (and so takes it off the catalog, or back as
 * it is now). False under `--static`, before live refresh is armed and for a
 * remote source's skill: its listing then stays as it is, so a door must not
 * send a client to list again to see it gone (review hR L5).
 *
 * @param skill The skill from the snapshot the door answered from.
 * @returns True when a refresh will read the skill again.
 */
export function isStaleSkillReread(skill: Skill): boolean {
  return skill.source === undefined && handler !== null;
}
