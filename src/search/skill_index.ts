/**
 * The search index over the skills a model may invoke: an inverted index of
 * folded, stemmed terms (`terms.ts`) ranked with BM25 per field, the fields'
 * scores summed with weights (name > description > body).
 *
 * Why per-field BM25 and not BM25F: BM25F adds a term's weighted frequencies
 * across fields before saturating, so enough repetitions in a body reach the
 * score of one name match; summing per-field saturated scores bounds what a
 * body can add (at most `(k1 + 1) * idf * bodyWeight` = 2.2 idf), below one
 * occurrence in a name up to 8.8 times the average name length (weight 5,
 * b 0.3) or in a description up to 2.3 times the average description length
 * (weight 3, b 0.5): a name or description match outranks a body-only match,
 * as issue 14 asks.
 *
 * Why not a library: MiniSearch 7.2.0 (BM25+, prefix, boosts, incremental
 * add/remove) was measured first on 10,000 generated skills: 20-60 ms per
 * query (it materialises and sorts every matching document) and about 150 MiB
 * of heap, against targets of 5 ms at the median; this index keeps the
 * postings in flat arrays and selects only the best `limit` results.
 *
 * What it stores: per term, the slots of the skills holding it and their
 * frequencies in each field; per skill, its field lengths; the sorted term
 * list (for prefixes); the skill objects of the snapshot it reflects (which
 * the catalog holds anyway). No text: snippets are cut from the skill's own
 * `body` at answer time (`snippet.ts`), and a removal re-tokenises the old
 * skill object.
 *
 * @module
 */

import { isInModelCatalog } from "../mcp/model_catalog/model_catalog.ts";
import type { TimeSlice } from "../skills/_time_slice.ts";
import { RACY_WINDOW_MS } from "../skills/index_cache.ts";
import type { Catalog, Skill } from "../skills/skill.ts";
import { fold, indexTerms, queryTerms, words } from "./terms.ts";

/** Weight of each field's BM25 score in a skill's score. */
export const FIELD_WEIGHTS = Object.freeze({ name: 5, description: 3, body: 1 });
/** BM25 length normalisation per field (names are short, so length matters little). */
const FIELD_B = Object.freeze({ name: 0.3, description: 0.5, body: 0.75 });
/** BM25 term frequency saturation. */
const K1 = 1.2;
/** Weight of a prefix match relative to a whole-term match. */
export const PREFIX_WEIGHT = 0.5;
/** Index terms one prefix may expand to at most (the most frequent are not preferred: sorted order). */
export const MAX_PREFIX_EXPANSIONS = 64;
/** How much an exact name match (the query's words are the name's words) multiplies a score. */
export const EXACT_NAME_BOOST = 3;

/** Field frequencies packed in one small integer: name and description 8 bits, body 14. */
const TF_FIELD_MAX = 255;
const TF_BODY_MAX = 16_383;

/** One skill found. */
export interface SearchHit {
  readonly skill: Skill;
  /** Relevance (higher is better; comparable only within one answer). */
  readonly score: number;
}

/** An answer of {@linkcode SkillSearchIndex.search}. */
export interface SearchAnswer {
  /** The best skills, best first (ties by name). */
  readonly hits: readonly SearchHit[];
  /** Skills that matched in all. */
  readonly total: number;
  /**
   * Which query term an index term matches (for snippets): the position of
   * the first query term equal to it, or a prefix query term it starts with;
   * -1 for none.
   */
  readonly matchOf: (term: string) => number;
  /** Distinct terms of the query (so a snippet can stop once it holds them all). */
  readonly termCount: number;
}

/** What {@linkcode SkillSearchIndex.sync} did. */
export interface SyncReport {
  /** Skills (re-)indexed: new, or changed in name, description, when-to-use or body. */
  readonly indexed: number;
  /** Skills taken out: gone, changed, or now hidden from the model. */
  readonly removed: number;
  /** Skills whose searchable text was unchanged (a new object only: no work). */
  readonly kept: number;
}

/** Postings of one term: `[slot, packedFrequencies, slot, packedFrequencies, ...]`. */
type Postings = number[];

function descriptionText(skill: Skill): string {
  return skill.whenToUse === undefined
    ? skill.description
    : `${skill.description}\n${skill.whenToUse}`;
}

/**
 * Whether two versions of a skill are searched the same way (bodies: the same
 * SKILL.md version). A version is the same only when its device, inode, size,
 * modification time AND change time all match, and the indexed one had
 * settled when its body was read (`readAtMs` at least `RACY_WINDOW_MS` after
 * its change time): Deno gives the change time in whole seconds and the
 * modification time moves in clock ticks (an owner can also set it back), so
 * a same-size edit within that second kept the whole identity and the old
 * body's terms stayed searched (the index cache's rule, `index_cache.ts`).
 */
function isSameText(a: Skill, b: Skill, readAtMs: number): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.description !== b.description || a.whenToUse !== b.whenToUse) {
    return false;
  }
  if (a.body !== undefined || b.body !== undefined) return a.body === b.body;
  const fileA = a.files.find((file) => file.path === a.skillMdFile);
  const fileB = b.files.find((file) => file.path === b.skillMdFile);
  return fileA !== undefined && fileB !== undefined && fileA.ctimeMs != null &&
    Math.abs(readAtMs - fileA.ctimeMs) >= RACY_WINDOW_MS &&
    fileA.size === fileB.size && fileA.mtimeMs === fileB.mtimeMs &&
    fileA.ctimeMs === fileB.ctimeMs && fileA.dev === fileB.dev && fileA.ino === fileB.ino;
}

/** Reads a skill's body for indexing (the catalog holds none; see `skill_body.ts`). */
export type BodyReader = (skill: Skill) => Promise<string>;

/** One skill's terms: term -> `[name, description, body]` frequencies, and each field's length in terms. */
function analyse(skill: Skill, body: string): {
  readonly frequencies: Map<string, [number, number, number]>;
  readonly lengths: [number, number, number];
} {
  const frequencies = new Map<string, [number, number, number]>();
  const lengths: [number, number, number] = [0, 0, 0];
  const texts = [skill.name, descriptionText(skill), body];
  texts.forEach((text, field) => {
    const terms = indexTerms(text);
    lengths[field] = terms.length;
    for (const term of terms) {
      let entry = frequencies.get(term);
      if (entry === undefined) {
        entry = [0, 0, 0];
        frequencies.set(term, entry);
      }
      entry[field]!++;
    }
  });
  return { frequencies, lengths };
}

function pack(tf: readonly [number, number, number]): number {
  return Math.min(tf[0], TF_FIELD_MAX) + Math.min(tf[1], TF_FIELD_MAX) * 256 +
    Math.min(tf[2], TF_BODY_MAX) * 65_536;
}

/** Binary search: the first index in sorted `list` whose value is >= `value`. */
function lowerBound(list: readonly string[], value: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * A search index that follows a catalog: {@linkcode sync} brings it to a new
 * snapshot by re-indexing only the skills whose text changed (snapshots share
 * the objects of skills a refresh did not touch, so the difference is found by
 * identity in one pass over the skills).
 */
export class SkillSearchIndex {
  #postings = new Map<string, Postings>();
  /** Every term with postings, sorted (code-unit order), for prefix lookups. */
  #terms: string[] = [];
  /** Skill per slot (null: free). */
  #slots: (Skill | null)[] = [];
  #freeSlots: number[] = [];
  /** Field lengths per slot, `[name, description, body]` at `slot * 3`. */
  #lengths: number[] = [];
  #lengthSums = [0, 0, 0];
  #slotByName = new Map<string, number>();
  #catalog: Catalog | null = null;
  #indexedTotal = 0;
  /** When each slot's body was read (ms since the epoch; see `isSameText`). */
  #readAtMs: number[] = [];
  readonly #now: () => number;

  /**
   * @param options `now`: the clock (ms since the epoch) that tells a
   *   SKILL.md version changed within `RACY_WINDOW_MS` of its read (tests set
   *   it). @default Date.now
   */
  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** The snapshot the index reflects now, or null before the first sync. */
  get catalog(): Catalog | null {
    return this.#catalog;
  }

  /** Skills in the index now. */
  get size(): number {
    return this.#slotByName.size;
  }

  /** Distinct terms in the index now. */
  get termCount(): number {
    return this.#terms.length;
  }

  /** Skills indexed since the index was created (each re-index counts once). */
  get indexedTotal(): number {
    return this.#indexedTotal;
  }

  /**
   * Brings the index to `catalog`: skills that are new or whose searchable
   * text changed are (re-)indexed, skills gone or now hidden from the model
   * (`disable-model-invocation`) are removed, others are only re-pointed to
   * the new snapshot's object. Synchronous: a request never sees a half-synced
   * index.
   *
   * @param catalog The snapshot to reflect.
   * @returns What changed. Costs O(skills) identity checks plus the work for
   *   changed skills only.
   */
  sync(catalog: Catalog): SyncReport {
    const steps = this.#syncSteps(catalog);
    let step = steps.next();
    while (!step.done) step = steps.next(step.value?.body ?? "");
    return step.value;
  }

  /**
   * {@linkcode sync}, yielding to the event loop through `slice` between
   * skills, so building the index of a large catalog does not hold up other
   * requests. The index is half-synced while it runs: callers must not search
   * it until the promise settles (see `search_skills.ts`, which queues).
   *
   * @param catalog The snapshot to reflect.
   * @param slice When to yield.
   * @param readBody Reads a body to index (the catalog holds none).
   *   @default the body held in memory, or none
   * @returns What changed.
   */
  async syncSliced(
    catalog: Catalog,
    slice: TimeSlice,
    readBody: BodyReader = (skill) => Promise.resolve(skill.body ?? ""),
  ): Promise<SyncReport> {
    const steps = this.#syncSteps(catalog);
    let step = steps.next();
    while (!step.done) {
      await slice.pause();
      step = steps.next(step.value === null ? "" : await readBody(step.value));
    }
    return step.value;
  }

  /**
   * The work of a sync. Each step yields the skill whose body it needs next
   * (the driver answers with the body) or null (a pause): changed and gone
   * skills are taken out first, in one pass over the postings, then new and
   * changed skills are indexed one per step.
   */
  *#syncSteps(catalog: Catalog): Generator<Skill | null, SyncReport, string> {
    if (catalog === this.#catalog) return { indexed: 0, removed: 0, kept: 0 };
    let kept = 0;
    const wanted = new Set<string>();
    const toIndex: Skill[] = [];
    const toRemove = new Set<number>();
    for (const skill of catalog.skills) {
      if (!isInModelCatalog(skill)) continue;
      wanted.add(skill.name);
      const slot = this.#slotByName.get(skill.name);
      const old = slot === undefined ? null : this.#slots[slot]!;
      if (old === skill) continue;
      if (slot !== undefined && old !== null && isSameText(old, skill, this.#readAtMs[slot]!)) {
        this.#slots[slot] = skill;
        kept++;
        continue;
      }
      if (slot !== undefined) toRemove.add(slot);
      toIndex.push(skill);
    }
    for (const [name, slot] of this.#slotByName) {
      if (!wanted.has(name)) toRemove.add(slot);
    }
    if (toRemove.size > 0) {
      this.#removeSlots(toRemove);
      yield null;
    }
    for (const skill of toIndex) {
      const readAtMs = this.#now();
      const body = yield skill;
      this.#add(skill, body, readAtMs);
      this.#indexedTotal++;
    }
    this.#catalog = catalog;
    return { indexed: toIndex.length, removed: toRemove.size, kept };
  }

  #add(skill: Skill, body: string, readAtMs: number): void {
    const slot = this.#freeSlots.pop() ?? this.#slots.length;
    this.#slots[slot] = skill;
    this.#readAtMs[slot] = readAtMs;
    this.#slotByName.set(skill.name, slot);
    const { frequencies, lengths } = analyse(skill, body);
    for (let field = 0; field < 3; field++) {
      this.#lengths[slot * 3 + field] = lengths[field]!;
      this.#lengthSums[field]! += lengths[field]!;
    }
    for (const [term, tf] of frequencies) {
      let postings = this.#postings.get(term);
      if (postings === undefined) {
        postings = [];
        this.#postings.set(term, postings);
        this.#terms.splice(lowerBound(this.#terms, term), 0, term);
      }
      postings.push(slot, pack(tf));
    }
  }

  /** Takes skills out: one pass over every term's postings (no body is read again). */
  #removeSlots(slots: ReadonlySet<number>): void {
    const emptied: string[] = [];
    for (const [term, postings] of this.#postings) {
      for (let at = 0; at < postings.length;) {
        if (!slots.has(postings[at]!)) {
          at += 2;
          continue;
        }
        // Order within postings does not matter: move the last entry here.
        postings[at] = postings[postings.length - 2]!;
        postings[at + 1] = postings[postings.length - 1]!;
        postings.length -= 2;
      }
      if (postings.length === 0) emptied.push(term);
    }
    for (const term of emptied) this.#postings.delete(term);
    if (emptied.length > 0) {
      const gone = new Set(emptied);
      this.#terms = this.#terms.filter((term) => !gone.has(term));
    }
    for (const slot of slots) {
      const skill = this.#slots[slot];
      if (skill === null || skill === undefined) continue;
      for (let field = 0; field < 3; field++) {
        this.#lengthSums[field]! -= this.#lengths[slot * 3 + field]!;
        this.#lengths[slot * 3 + field] = 0;
      }
      this.#slots[slot] = null;
      this.#slotByName.delete(skill.name);
      this.#freeSlots.push(slot);
    }
  }

  /**
   * Ranks the indexed skills against a query. Any query term may match (OR);
   * each term's score in a skill is the weighted sum of its per-field BM25
   * scores; a prefix term scores the best of its whole-term match and its
   * expansions (times {@linkcode PREFIX_WEIGHT}); a skill's score is the sum
   * over the query's terms times the share of them it matched; a query whose
   * words are exactly a skill's name multiplies that skill's score by
   * {@linkcode EXACT_NAME_BOOST}.
   *
   * @param query The query (any text; callers bound its length).
   * @param limit Hits returned at most (at least 1).
   * @returns The best `limit` hits, how many skills matched, and the matcher
   *   of the query's terms.
   */
  search(query: string, limit: number): SearchAnswer {
    const terms = queryTerms(query);
    const matchOf = (term: string) =>
      terms.findIndex((candidate) =>
        candidate.term === term || (candidate.isPrefix && term.startsWith(candidate.term))
      );
    const termCount = terms.length;
    const count = this.#slotByName.size;
    if (terms.length === 0 || count === 0) return { hits: [], total: 0, matchOf, termCount };
    const slots = this.#slots.length;
    const total = new Float64Array(slots);
    const matchedTerms = new Uint16Array(slots);
    const termScore = new Float64Array(slots);
    const averages = this.#lengthSums.map((sum) => Math.max(sum / count, 1));
    const touched: number[] = [];
    for (const term of terms) {
      const reached: number[] = [];
      this.#scoreTerm(term.term, 1, averages, termScore, reached);
      if (term.isPrefix) {
        let expansions = 0;
        for (let at = lowerBound(this.#terms, term.term); at < this.#terms.length; at++) {
          const candidate = this.#terms[at]!;
          if (!candidate.startsWith(term.term)) break;
          if (candidate === term.term) continue;
          if (++expansions > MAX_PREFIX_EXPANSIONS) break;
          this.#scoreTerm(candidate, PREFIX_WEIGHT, averages, termScore, reached);
        }
      }
      for (const slot of reached) {
        if (termScore[slot] === 0) continue;
        if (matchedTerms[slot] === 0) touched.push(slot);
        total[slot]! += termScore[slot]!;
        matchedTerms[slot]!++;
        termScore[slot] = 0;
      }
    }
    const exactName = words(query).map((word) => fold(word.text)).join("-");
    const nameSlot = this.#slotByName.get(exactName);
    const best = new TopK(limit, (slot) => this.#slots[slot]!.name);
    for (const slot of touched) {
      let score = total[slot]! * (matchedTerms[slot]! / terms.length);
      if (slot === nameSlot) score *= EXACT_NAME_BOOST;
      best.offer(slot, score);
    }
    const hits = best.sorted().map(({ slot, score }) => ({ skill: this.#slots[slot]!, score }));
    return { hits, total: touched.length, matchOf, termCount };
  }

  /** Adds `weight` times the term's score to `scores[slot]`, keeping the best per term. */
  #scoreTerm(
    term: string,
    weight: number,
    averages: readonly number[],
    scores: Float64Array,
    reached: number[],
  ): void {
    const postings = this.#postings.get(term);
    if (postings === undefined) return;
    const documents = postings.length / 2;
    const idf = Math.log(1 + (this.size - documents + 0.5) / (documents + 0.5));
    const lengths = this.#lengths;
    for (let at = 0; at < postings.length; at += 2) {
      const slot = postings[at]!;
      const packed = postings[at + 1]!;
      const tfName = packed & 255;
      const tfDescription = (packed >>> 8) & 255;
      const tfBody = packed >>> 16;
      let score = 0;
      if (tfName > 0) {
        score += FIELD_WEIGHTS.name *
          saturate(tfName, lengths[slot * 3]!, averages[0]!, FIELD_B.name);
      }
      if (tfDescription > 0) {
        score += FIELD_WEIGHTS.description *
          saturate(tfDescription, lengths[slot * 3 + 1]!, averages[1]!, FIELD_B.description);
      }
      if (tfBody > 0) {
        score += FIELD_WEIGHTS.body *
          saturate(tfBody, lengths[slot * 3 + 2]!, averages[2]!, FIELD_B.body);
      }
      score *= idf * weight;
      const previous = scores[slot]!;
      if (previous === 0) reached.push(slot);
      if (score > previous) scores[slot] = score;
    }
  }
}

/** BM25's saturated term frequency of one field. */
function saturate(tf: number, length: number, average: number, b: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - b + (b * length) / average));
}

/** The best `k` slots by score (ties by name), without sorting every candidate. */
class TopK {
  #items: { slot: number; score: number; name: string }[] = [];
  constructor(readonly k: number, readonly nameOf: (slot: number) => string) {}

  offer(slot: number, score: number): void {
    const items = this.#items;
    if (items.length >= this.k) {
      const worst = items[items.length - 1]!;
      if (score < worst.score) return;
      if (score === worst.score && this.nameOf(slot) >= worst.name) return;
    }
    const item = { slot, score, name: this.nameOf(slot) };
    // Insertion into a short sorted list (k <= 100).
    let at = items.length;
    while (at > 0 && isBefore(item, items[at - 1]!)) at--;
    items.splice(at, 0, item);
    if (items.length > this.k) items.pop();
  }

  sorted(): readonly { slot: number; score: number }[] {
    return this.#items;
  }
}

function isBefore(
  a: { score: number; name: string },
  b: { score: number; name: string },
): boolean {
  return a.score > b.score || (a.score === b.score && a.name < b.name);
}
