/**
 * Per-skill overrides: the owner's `overrides.json` can take a served skill
 * out (`enabled: false`), keep it out of the model's catalog and search
 * (`modelInvocable: false`, like frontmatter `disable-model-invocation:
 * true`) or drop its prompt (`userInvocable: false`, like `user-invocable:
 * false`). An override only ever narrows what the skill itself allows: a
 * `true` widens nothing. Applied to a catalog as a view, so the catalog live
 * refresh rebuilds stays untouched and the overrides apply to every new
 * snapshot.
 *
 * @module
 */

import { freezeCatalog } from "./_freeze.ts";
import type { Problem } from "./problem.ts";
import type { Catalog, Skill } from "./skill.ts";

/** The owner's switches for one served skill name (absent or true: the skill's own setting). */
export interface SkillOverride {
  readonly enabled?: boolean;
  readonly modelInvocable?: boolean;
  readonly userInvocable?: boolean;
}

/** Overrides by served skill name (a plain object, so it crosses `postMessage`). */
export type SkillOverrides = Readonly<Record<string, SkillOverride>>;

/**
 * A record's own entry by skill name, never an inherited member: a skill may
 * be named `constructor`, `toString` or `valueOf`, and on a plain object
 * `record[name]` would answer `Object.prototype`'s function for it (review
 * s15 M1: `skillgate override constructor --disable` crashed on it). The one
 * lookup for every record keyed by a skill name (overrides, `setByView`).
 *
 * @param record Overrides, `setByView`, or any record keyed by skill name.
 * @param name A skill name (exact).
 * @returns The entry, or undefined when the record has none of its own.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** The three switches, in the order they are documented. */
export const OVERRIDE_SWITCHES = ["enabled", "modelInvocable", "userInvocable"] as const;

/** One of {@linkcode OVERRIDE_SWITCHES}. */
export type OverrideSwitch = typeof OVERRIDE_SWITCHES[number];

/** What the worker serves on top of the catalog it builds: the overrides and owner problems. */
export interface CatalogOverlay {
  readonly overrides: SkillOverrides;
  /** Problems about the owner's files (`restart-needed`, `config-invalid`), added to the view. */
  readonly problems: readonly Problem[];
  /**
   * The switches a settings view turned off (`overrides.json`'s `setByView`),
   * the only ones a view may turn back on; shown by the settings view. @default none
   */
  readonly setByView?: Readonly<Record<string, readonly OverrideSwitch[]>>;
}

/** No overrides, no problems. */
export const EMPTY_OVERLAY: CatalogOverlay = Object.freeze({
  overrides: Object.freeze({}),
  problems: Object.freeze([]),
});

/**
 * The overrides in force when `current` is in force and `proposed` is read:
 * a switch is off when it is off in either (the meet), so a live edit can
 * only narrow. The switches `proposed` turns back on are returned as
 * `widened`, to be reported (`restart-needed`), not applied.
 *
 * @param current The overrides in force.
 * @param proposed The overrides just read.
 * @returns The narrowed overrides and `widened`, one `name.switch` entry per
 *   switch turned back on (sorted).
 */
export function narrowOverrides(
  current: SkillOverrides,
  proposed: SkillOverrides,
): { overrides: SkillOverrides; widened: string[] } {
  const overrides: Record<string, SkillOverride> = {};
  const widened: string[] = [];
  const names = new Set([...Object.keys(current), ...Object.keys(proposed)]);
  for (const name of [...names].sort()) {
    const entry: Record<string, boolean> = {};
    for (const key of OVERRIDE_SWITCHES) {
      const isOffNow = ownEntry(current, name)?.[key] === false;
      const isOffProposed = ownEntry(proposed, name)?.[key] === false;
      if (isOffNow || isOffProposed) entry[key] = false;
      if (isOffNow && !isOffProposed) widened.push(`${name}.${key}`);
    }
    if (Object.keys(entry).length > 0) overrides[name] = entry;
  }
  return { overrides, widened };
}

/**
 * Whether the owner took a served skill out (`enabled: false`): it is not
 * served, and the trusted part releases no environment value for it. The one
 * rule for both ({@linkcode applyOverlay} and `src/sandbox/env_release_service.ts`).
 *
 * @param overrides The overrides in force.
 * @param name The skill's served name (exact).
 * @returns True when `overrides` disables it.
 */
export function isDisabled(overrides: SkillOverrides, name: string): boolean {
  return ownEntry(overrides, name)?.enabled === false;
}

/** Narrowed copies of skills, per base skill object (so a view reuses them across snapshots). */
const narrowedCopies = new WeakMap<Skill, { readonly key: string; readonly copy: Skill }>();

/**
 * The catalog a worker serves: `base` without the disabled skills, the
 * hidden ones marked (`Skill.override`), and the overlay's problems added.
 * Pure; `base` is unchanged.
 *
 * @param base A catalog as built or rebuilt.
 * @param overlay The overrides in force and the owner problems.
 * @returns `base` itself when the overlay is empty, else a new frozen snapshot.
 *
 * Source: issue 19 ("Per-skill overrides"); the feature-rich anchor's
 * `disable-model-invocation` and `user-invocable`.
 */
export function applyOverlay(base: Catalog, overlay: CatalogOverlay): Catalog {
  const names = Object.keys(overlay.overrides);
  if (names.length === 0 && overlay.problems.length === 0) return base;
  const skills: Skill[] = [];
  for (const skill of base.skills) {
    const switches = ownEntry(overlay.overrides, skill.name);
    if (switches === undefined) {
      skills.push(skill);
      continue;
    }
    if (isDisabled(overlay.overrides, skill.name)) continue;
    const override: { modelInvocable?: false; userInvocable?: false } = {};
    if (switches.modelInvocable === false) override.modelInvocable = false;
    if (switches.userInvocable === false) override.userInvocable = false;
    skills.push(Object.keys(override).length === 0 ? skill : narrowedCopy(skill, override));
  }
  return freezeCatalog(base.roots, skills, [
    ...base.problems,
    ...overlay.problems,
    ...unmatchedRows(base, names),
  ]);
}

/**
 * An `override-unmatched` warning for each overrides row that names no skill
 * of `base` (a typo, another case: `Hello` for `hello`), with the served name
 * it likely meant, so an owner who believes a skill is off learns it is not.
 * Source: n8's finding (`skillgate override Hello --disable` reported success).
 */
function unmatchedRows(base: Catalog, names: readonly string[]): Problem[] {
  const found: Problem[] = [];
  for (const name of names) {
    if (base.byName.has(name)) continue;
    const folded = name.toLowerCase();
    const meant = base.skills.find((skill) => skill.name.toLowerCase() === folded)?.name;
    found.push(Object.freeze({
      path: "overrides.json",
      reason: "override-unmatched",
      severity: "warning",
      detail: `The row "${name.slice(0, 80)}" names no served skill, so it changes nothing` +
        (meant === undefined ? "." : `; did you mean "${meant}"?`) +
        " Names are exact (skillgate override NAME takes the name skill_list shows)",
    }));
  }
  return found;
}

function narrowedCopy(skill: Skill, override: Skill["override"] & object): Skill {
  const key = JSON.stringify(override);
  const cached = narrowedCopies.get(skill);
  if (cached?.key === key) return cached.copy;
  const copy = Object.freeze({ ...skill, override: Object.freeze(override) });
  narrowedCopies.set(skill, { key, copy });
  return copy;
}
