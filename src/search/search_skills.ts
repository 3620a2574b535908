/**
 * Searching the current catalog: one {@linkcode SkillSearchIndex} per
 * catalog store, built lazily by the first search and brought up to date
 * (incrementally) by the first search after each refresh swapped in a new
 * snapshot, then ranked and cut into the `skill_search` answer.
 *
 * @module
 */

import type { Catalog, Skill } from "../skills/skill.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import { SkillSearchIndex } from "./skill_index.ts";
import { cutSnippet } from "./snippet.ts";

/** The index of each store (a store lives as long as the server process). */
const indexes = new WeakMap<CatalogStore, SkillSearchIndex>();

/**
 * The search index of a store, synced to `catalog` (a snapshot the store
 * served). The index is built on first use, not at start-up: a server nobody
 * searches pays nothing. Later calls re-index only skills that changed.
 *
 * @param store The store the requests read.
 * @param catalog The snapshot this request answers from (`store.current()`).
 * @returns The index, reflecting `catalog`.
 */
export function searchIndexFor(store: CatalogStore, catalog: Catalog): SkillSearchIndex {
  let index = indexes.get(store);
  if (index === undefined) {
    index = new SkillSearchIndex();
    indexes.set(store, index);
  }
  index.sync(catalog);
  return index;
}

/** One found skill with its snippet. */
export interface FoundSkill {
  readonly skill: Skill;
  /** Relevance, rounded to 4 decimals (higher is better). */
  readonly score: number;
  /** The best-matching passage, matched words wrapped in `«` and `»`. */
  readonly snippet: string;
}

/**
 * Searches a synced index and cuts snippets for the best `limit` skills only.
 *
 * @param index An index (see {@linkcode searchIndexFor}).
 * @param query The query (1-512 characters; the tool checks).
 * @param limit Skills returned at most (1-100).
 * @returns The best `limit` skills, best first, and how many matched in all.
 */
export function searchSkills(
  index: SkillSearchIndex,
  query: string,
  limit: number,
): { readonly found: FoundSkill[]; readonly total: number } {
  const answer = index.search(query, limit);
  const found = answer.hits.map(({ skill, score }) => ({
    skill,
    score: Math.round(score * 10_000) / 10_000,
    snippet: cutSnippet(
      { description: descriptionOf(skill), body: skill.body },
      answer.matchOf,
      answer.termCount,
    ),
  }));
  return { found, total: answer.total };
}

function descriptionOf(skill: Skill): string {
  return skill.whenToUse === undefined
    ? skill.description
    : `${skill.description}\n${skill.whenToUse}`;
}
