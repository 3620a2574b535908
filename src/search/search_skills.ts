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
import { createTimeSlice, DEFAULT_SLICE_MS, type GiveWay } from "../skills/_time_slice.ts";
import { DEFAULT_CAPS } from "../caps.ts";
import { skillBodyText } from "../skills/skill_body.ts";
import { type BodyReader, SkillSearchIndex } from "./skill_index.ts";
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
  run<T>(
    catalog: Catalog,
    readBody: BodyReader,
    use: (index: SkillSearchIndex) => T,
    giveWay?: Omit<GiveWay, "isUrgent">,
  ): Promise<T> {
    if (this.#pending === 0 && this.index.catalog === catalog) {
      return Promise.resolve(use(this.index));
    }
    this.#pending++;
    const result = this.#queue.then(async () => {
      try {
        // A background build gives way to requests until a search queues behind it.
        const slice = giveWay === undefined
          ? createTimeSlice()
          : createTimeSlice(DEFAULT_SLICE_MS, { ...giveWay, isUrgent: () => this.#pending > 1 });
        await this.index.syncSliced(catalog, slice, readBody);
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
 * @param maxSkillMdBytes The SKILL.md read cap in bytes: bodies are read
 *   through the gate to be indexed (the catalog holds none).
 *   @default DEFAULT_CAPS.maxSkillMdBytes
 * @param giveWay Hold the build while client requests flow (see
 *   `createTimeSlice`), until a search queues behind it. @default none
 * @returns Resolves with how many skills were indexed once the build is done.
 *
 * Requires `--allow-read` on the roots.
 */
export function warmSearchIndex(
  store: CatalogStore,
  maxSkillMdBytes: number = DEFAULT_CAPS.maxSkillMdBytes,
  giveWay?: Omit<GiveWay, "isUrgent">,
): Promise<number> {
  return holderOf(store).run(
    store.current(),
    bodyReader(maxSkillMdBytes),
    (index) => index.size,
    giveWay,
  );
}

function bodyReader(maxSkillMdBytes: number): BodyReader {
  return (skill) => skillBodyText(skill, maxSkillMdBytes);
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
 * @param maxSkillMdBytes The SKILL.md read cap in bytes (bodies are read
 *   through the gate to index them and to cut the hits' snippets).
 *   @default DEFAULT_CAPS.maxSkillMdBytes
 * @returns The best skills with snippets and the number that matched.
 *
 * Requires `--allow-read` on the roots.
 */
export async function searchCatalog(
  store: CatalogStore,
  catalog: Catalog,
  query: string,
  limit: number,
  maxSkillMdBytes: number = DEFAULT_CAPS.maxSkillMdBytes,
): Promise<SearchResults> {
  const readBody = bodyReader(maxSkillMdBytes);
  // Ranked synchronously on the synced index; the hits' bodies are read afterwards.
  const answer = await holderOf(store).run(
    catalog,
    readBody,
    (index) => index.search(query, limit),
  );
  return await cutSnippets(answer, readBody);
}

/**
 * Searches a synced index and cuts snippets for the best `limit` skills only.
 *
 * @param index A synced index.
 * @param query The query (1-512 characters; the tool checks).
 * @param limit Skills returned at most (1-100).
 * @param readBody Reads a hit's body for its snippet. @default the body in memory, or none
 * @returns The best `limit` skills, best first, and how many matched in all.
 */
export function searchSkills(
  index: SkillSearchIndex,
  query: string,
  limit: number,
  readBody: BodyReader = (skill) => Promise.resolve(skill.body ?? ""),
): Promise<SearchResults> {
  return cutSnippets(index.search(query, limit), readBody);
}

async function cutSnippets(
  answer: ReturnType<SkillSearchIndex["search"]>,
  readBody: BodyReader,
): Promise<SearchResults> {
  const found = await Promise.all(answer.hits.map(async ({ skill, score }) => ({
    skill,
    score: Math.round(score * 10_000) / 10_000,
    snippet: cutSnippet(
      { description: descriptionOf(skill), body: await readBody(skill) },
      answer.matchOf,
      answer.termCount,
    ),
  })));
  return { found, total: answer.total };
}

function descriptionOf(skill: Skill): string {
  return skill.whenToUse === undefined
    ? skill.description
    : `${skill.description}\n${skill.whenToUse}`;
}
