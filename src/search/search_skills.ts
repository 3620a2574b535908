/**
 * Searching the current catalog. Each catalog store has one
 * {@linkcode SkillSearchIndex}; the worker starts building it right after
 * start-up ({@linkcode warmSearchIndex}, time-sliced, so requests are answered
 * meanwhile); a search that arrives first waits for it. After a live refresh
 * swapped in a new snapshot, the next search brings the index up to date,
 * re-indexing only the skills whose text changed. Syncs and the searches that
 * need them run one after another, so no search reads a half-synced index.
 *
 * @module
 */

import type { Catalog, Skill } from "../skills/skill.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import { createTimeSlice } from "../skills/_time_slice.ts";
import { SkillSearchIndex } from "./skill_index.ts";
import { cutSnippet } from "./snippet.ts";

/** One store's index and the queue of work on it. */
class IndexHolder {
  readonly index = new SkillSearchIndex();
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /**
   * Runs `use` on the index synced to `catalog`: at once when it is synced
   * and nothing is queued, else after the work queued before it and a
   * (time-sliced) sync.
   */
  run<T>(catalog: Catalog, use: (index: SkillSearchIndex) => T): Promise<T> {
    if (this.#pending === 0 && this.index.catalog === catalog) {
      return Promise.resolve(use(this.index));
    }
    this.#pending++;
    const result = this.#queue.then(async () => {
      try {
        await this.index.syncSliced(catalog, createTimeSlice());
        // Synchronously after the sync: nothing else runs in between.
        return use(this.index);
      } finally {
        this.#pending--;
      }
    });
    this.#queue = result.catch(() => {});
    return result;
  }
}

/** The holder of each store (a store lives as long as the server process). */
const holders = new WeakMap<CatalogStore, IndexHolder>();

function holderOf(store: CatalogStore): IndexHolder {
  let holder = holders.get(store);
  if (holder === undefined) {
    holder = new IndexHolder();
    holders.set(store, holder);
  }
  return holder;
}

/**
 * Starts building the search index of a store's current snapshot in the
 * background (time-sliced: requests keep being answered).
 *
 * @param store The store requests read.
 * @returns Resolves with how many skills were indexed once the build is done.
 */
export function warmSearchIndex(store: CatalogStore): Promise<number> {
  return holderOf(store).run(store.current(), (index) => index.size);
}

/** One found skill with its snippet. */
export interface FoundSkill {
  readonly skill: Skill;
  /** Relevance, rounded to 4 decimals (higher is better). */
  readonly score: number;
  /** The best-matching passage, matched words wrapped in `«` and `»`. */
  readonly snippet: string;
}

/** What a search found. */
export interface SearchResults {
  /** The best `limit` skills, best first. */
  readonly found: readonly FoundSkill[];
  /** How many skills matched in all. */
  readonly total: number;
}

/**
 * Searches the skills of `catalog` (a snapshot of `store`) the model may invoke.
 *
 * @param store The store (it owns the index).
 * @param catalog The snapshot this request answers from (`store.current()`).
 * @param query The query (1-512 characters; the tool checks).
 * @param limit Skills returned at most (1-100).
 * @returns The best skills with snippets and the number that matched.
 */
export function searchCatalog(
  store: CatalogStore,
  catalog: Catalog,
  query: string,
  limit: number,
): Promise<SearchResults> {
  return holderOf(store).run(catalog, (index) => searchSkills(index, query, limit));
}

/**
 * Searches a synced index and cuts snippets for the best `limit` skills only.
 *
 * @param index A synced index.
 * @param query The query (1-512 characters; the tool checks).
 * @param limit Skills returned at most (1-100).
 * @returns The best `limit` skills, best first, and how many matched in all.
 */
export function searchSkills(
  index: SkillSearchIndex,
  query: string,
  limit: number,
): SearchResults {
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
