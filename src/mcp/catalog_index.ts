/**
 * Per-snapshot indexes the MCP methods look things up in, built once per
 * catalog snapshot (cached by identity; a refresh makes a new snapshot and so
 * a new index): skill names in catalog order with their lowercase forms, the
 * user-invocable subset, and lowercase descriptions for `skill_list`'s
 * query. Exact lookups use `Catalog.byName` (a Map); these lists serve
 * bounded substring searches (completion, suggestions, query).
 *
 * @module
 */

import type { Catalog, Skill } from "../skills/skill.ts";
import { isUserInvocable } from "./prompts/prompt_skills.ts";

/** Names, in catalog (name) order, with their lowercase forms. */
export interface NameList {
  readonly names: readonly string[];
  readonly lowerNames: readonly string[];
}

/** The indexes of one snapshot. */
export interface CatalogIndex {
  /** Every served skill. */
  readonly all: NameList;
  /** The user-invocable skills (the generic prompt's names). */
  readonly invocable: NameList;
  /** Lowercase descriptions, parallel to `Catalog.skills`. */
  readonly lowerDescriptions: readonly string[];
}

const indexes = new WeakMap<Catalog, CatalogIndex>();

/**
 * The indexes of `catalog`, built on first use and then reused.
 *
 * @param catalog A frozen snapshot.
 * @returns Its indexes.
 */
export function catalogIndex(catalog: Catalog): CatalogIndex {
  const known = indexes.get(catalog);
  if (known !== undefined) return known;
  const skills = catalog.skills;
  const index: CatalogIndex = Object.freeze({
    all: nameList(skills),
    invocable: nameList(skills.filter(isUserInvocable)),
    lowerDescriptions: Object.freeze(skills.map((skill) => skill.description.toLowerCase())),
  });
  indexes.set(catalog, index);
  return index;
}

function nameList(skills: readonly Skill[]): NameList {
  return Object.freeze({
    names: Object.freeze(skills.map((skill) => skill.name)),
    lowerNames: Object.freeze(skills.map((skill) => skill.name.toLowerCase())),
  });
}

/**
 * Up to `max` names close to `typed` (case-insensitive: one contains the
 * other), in list order, stopping at the `max`-th. A `typed` longer than
 * `maxNeedleChars` or empty is close to nothing (no scan at all).
 *
 * @param list The names to choose from.
 * @param typed The client's string, already within its cap.
 * @param options `max` names returned (positive); `maxNeedleChars` above
 *   which nothing is searched.
 * @returns The close names, at most `max`.
 */
export function closeNames(
  list: NameList,
  typed: string,
  options: { max: number; maxNeedleChars: number },
): string[] {
  if (typed === "" || typed.length > options.maxNeedleChars) return [];
  const needle = typed.toLowerCase();
  const close: string[] = [];
  for (let index = 0; index < list.lowerNames.length && close.length < options.max; index++) {
    const lower = list.lowerNames[index] as string;
    if (lower.includes(needle) || needle.includes(lower)) close.push(list.names[index] as string);
  }
  return close;
}
