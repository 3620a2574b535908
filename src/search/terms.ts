/**
 * Text to search terms, the same way for skills and for queries: words are
 * runs of letters and digits; each is folded (NFKD, combining marks removed,
 * lower case: "Résumé" and "resume" are one word), English stop words are
 * dropped, and what is left is stemmed with the Porter stemmer
 * ("validating", "validates" and "validation" all become "valid").
 *
 * @module
 */

import { stemmer } from "stemmer";

/** A word as it appears in a text, and where. */
export interface Word {
  /** The word as written (marks included). */
  readonly text: string;
  /** Offset of its first UTF-16 code unit in the text. */
  readonly start: number;
  /** Offset just after its last code unit. */
  readonly end: number;
}

/**
 * A word: letters (with any combining marks that follow them) and digits.
 * Everything else (spaces, punctuation, `-`, `_`, `/`) separates words, so
 * `pdf-form-filler` is three words.
 */
export const WORD_PATTERN: RegExp = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const WORD = WORD_PATTERN;

/** Characters a folded word keeps at most (a longer run is cut; nobody searches for it). */
export const MAX_WORD_CHARS = 64;

/**
 * Common English words that say nothing about what a skill does. A query made
 * only of them keeps them (see {@linkcode queryTerms}).
 *
 * Source: the classic English stop list of Lucene's `EnglishAnalyzer`, with
 * question words and a few more function words added.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be but by for from has have how i if in into is it its me my no not of " +
    "on or so such that the their then there these they this to was we what when where which " +
    "who why will with you your can do does should would could i'm it's").split(" "),
);

/**
 * Splits a text into words with their offsets.
 *
 * @param text Any text.
 * @returns Its words in order (see {@linkcode WORD} for what a word is).
 */
export function words(text: string): Word[] {
  return [...eachWord(text)];
}

/**
 * The words of a text, one at a time (a caller may stop early).
 *
 * @param text Any text.
 * @returns An iterator over its words in order.
 */
export function* eachWord(text: string): Generator<Word> {
  for (const match of text.matchAll(WORD)) {
    yield { text: match[0], start: match.index, end: match.index + match[0].length };
  }
}

/**
 * Folds a word for comparison: Unicode compatibility decomposition (NFKD),
 * combining marks removed, lower-cased, cut to {@linkcode MAX_WORD_CHARS}.
 *
 * @param word One word (from {@linkcode words}).
 * @returns The folded word, e.g. `resume` for `Résumé`, `ffi` for `ﬃ`.
 *
 * Source: Unicode UAX #15 (NFKD); "accent-insensitive" as search engines
 * commonly do it (Lucene's ASCIIFoldingFilter does the same for Latin).
 */
export function fold(word: string): string {
  const lower = word.toLowerCase();
  const plain = /^[a-z0-9]*$/.test(lower)
    ? lower
    : lower.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return plain.length > MAX_WORD_CHARS ? plain.slice(0, MAX_WORD_CHARS) : plain;
}

/** Stems computed so far (words repeat a lot; bounded, cleared when full). */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

/**
 * The search term of a folded word: its Porter stem, or the word itself when
 * it holds a digit or is shorter than three letters (`v2`, `s3`, `go` stay
 * as they are).
 *
 * @param folded A folded word (from {@linkcode fold}).
 * @returns The term the index and queries use.
 *
 * Source: M. F. Porter, "An algorithm for suffix stripping" (1980), as
 * implemented by the `stemmer` package.
 */
export function stem(folded: string): string {
  if (folded.length < 3 || /[0-9]/.test(folded)) return folded;
  let term = stems.get(folded);
  if (term === undefined) {
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    term = stemmer(folded);
    stems.set(folded, term);
  }
  return term;
}

/**
 * Whether a folded word is an English stop word.
 *
 * @param folded A folded word.
 * @returns True for words like `the`, `to`, `how`.
 */
export function isStopWord(folded: string): boolean {
  return STOP_WORDS.has(folded);
}

/**
 * The terms a skill's text is indexed under: every word folded, stop words
 * dropped, stemmed.
 *
 * @param text A name, description or body.
 * @returns The terms in order, repeats kept (they count as term frequency).
 */
export function indexTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const folded = fold(match[0]);
    if (!isStopWord(folded)) terms.push(stem(folded));
  }
  return terms;
}

/** One term of a query. */
export interface QueryTerm {
  /** The stemmed term looked up in the index. */
  readonly term: string;
  /** Whether index terms that start with it match too (a word still being typed). */
  readonly isPrefix: boolean;
}

/**
 * The terms of a query: folded and stemmed like indexed text, stop words
 * dropped unless the query has nothing else, repeats removed. The last word
 * is also matched as a prefix (the model or user may not have finished it),
 * as is any word of one or two characters other than a digit run.
 *
 * @param query The query text.
 * @returns Its distinct terms in order; empty when it has no word at all.
 */
export function queryTerms(query: string): QueryTerm[] {
  const folded = words(query).map((word) => fold(word.text));
  const meaningful = folded.filter((word) => !isStopWord(word));
  const kept = meaningful.length > 0 ? meaningful : folded;
  const seen = new Map<string, QueryTerm>();
  kept.forEach((word, index) => {
    const isLast = index === kept.length - 1;
    const isPrefix = isLast || (word.length <= 2 && !/^[0-9]+$/.test(word));
    // A Porter stem is never longer than its word, so a prefix of the stem
    // covers every word the unfinished one could become, except where the
    // finished word loses more of its end ("validat" does not reach "valid").
    const term = stem(word);
    const previous = seen.get(term);
    if (previous === undefined || (isPrefix && !previous.isPrefix)) {
      seen.set(term, { term, isPrefix });
    }
  });
  return [...seen.values()];
}
