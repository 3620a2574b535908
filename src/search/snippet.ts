/**
 * The passage of a skill that best shows why a search found it, with the
 * matched words marked as `«word»`.
 *
 * @module
 */

import { fold, isStopWord, stem, WORD_PATTERN } from "./terms.ts";

/** Characters of a snippet at most, marks and ellipses excluded. */
export const SNIPPET_CHARS = 200;

/** Characters of the body searched for the passage (a match further on falls back to the description). */
export const SNIPPET_SCAN_CHARS = 64 * 1024;

/** The mark before a matched word. */
export const MARK_OPEN = "«";
/** The mark after a matched word. */
export const MARK_CLOSE = "»";

/** Matched words closer than this (first start to last end) count as one passage. */
const PASSAGE_CHARS = 160;

interface Hit {
  readonly start: number;
  readonly end: number;
  /** The query term it matched. */
  readonly term: number;
}

interface Passage {
  readonly text: string;
  /** Matched words, by offset in `text`. */
  readonly hits: readonly Hit[];
  /** Offsets of the best window of matches. */
  readonly from: number;
  readonly to: number;
  /** Distinct query terms in the window. */
  readonly distinct: number;
}

/**
 * Cuts the snippet of a found skill: the window of at most
 * {@linkcode SNIPPET_CHARS} characters of its description (with
 * `when-to-use`) or of its body that holds the most distinct query terms
 * (the description wins ties; the body is not read when the description holds
 * them all), whitespace collapsed, cut at word boundaries, `…` where the text
 * goes on, each matched word wrapped in `«` and `»`. Marks already in the
 * skill's text are shown as `‹` and `›` so that only the server's marks use
 * the guillemets. Control characters become spaces.
 *
 * @param source The skill's description (plus when-to-use) and body.
 * @param matchOf Which query term a word's index term (a stem) matches, or -1.
 * @param termCount Distinct query terms (scanning stops once a window holds all).
 * @returns The snippet; the start of the description, unmarked, when no
 *   matched word is found in the text scanned (a match past
 *   {@linkcode SNIPPET_SCAN_CHARS} characters of the body).
 */
export function cutSnippet(
  source: { readonly description: string; readonly body: string },
  matchOf: (term: string) => number,
  termCount: number,
): string {
  const description = bestPassage(source.description, matchOf, termCount);
  const body = description !== null && description.distinct >= termCount
    ? null
    : bestPassage(source.body.slice(0, SNIPPET_SCAN_CHARS), matchOf, termCount);
  const best = body !== null && (description === null || body.distinct > description.distinct)
    ? body
    : description;
  if (best === null) return render(source.description, [], 0, 0);
  return render(best.text, best.hits, best.from, best.to);
}

function bestPassage(
  text: string,
  matchOf: (term: string) => number,
  termCount: number,
): Passage | null {
  const hits: Hit[] = [];
  // Two pointers over the hits: the window with the most distinct terms.
  const counts = new Map<number, number>();
  let bestDistinct = 0;
  let bestFrom = 0;
  let bestTo = 0;
  let left = 0;
  const pattern = new RegExp(WORD_PATTERN);
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    // Enough: a window holds every term and the snippet around it is complete.
    if (bestDistinct >= termCount && match.index > bestTo + SNIPPET_CHARS) break;
    const folded = fold(match[0]);
    if (isStopWord(folded)) continue;
    const term = matchOf(stem(folded));
    if (term < 0) continue;
    const entering: Hit = { start: match.index, end: match.index + match[0].length, term };
    hits.push(entering);
    counts.set(term, (counts.get(term) ?? 0) + 1);
    while (entering.end - hits[left]!.start > PASSAGE_CHARS) {
      const leaving = hits[left]!.term;
      const count = counts.get(leaving)! - 1;
      if (count === 0) counts.delete(leaving);
      else counts.set(leaving, count);
      left++;
    }
    if (counts.size > bestDistinct) {
      bestDistinct = counts.size;
      bestFrom = hits[left]!.start;
      bestTo = entering.end;
    }
  }
  if (hits.length === 0) return null;
  return { text, hits, from: bestFrom, to: bestTo, distinct: bestDistinct };
}

function render(text: string, hits: readonly Hit[], from: number, to: number): string {
  const room = Math.max(0, SNIPPET_CHARS - (to - from));
  let start = Math.max(0, from - Math.min(Math.floor(room / 2), 60));
  let end = Math.min(text.length, start + Math.max(SNIPPET_CHARS, to - from));
  if (end === text.length) start = Math.max(0, Math.min(start, end - SNIPPET_CHARS));
  // Cut at word boundaries (never inside a matched word: hits start on a word).
  if (start > 0) {
    const space = text.slice(start, from).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  if (end < text.length) {
    const lastSpace = text.slice(to, end).search(/\s\S*$/);
    if (lastSpace >= 0) end = to + lastSpace;
  }
  let out = "";
  let at = start;
  for (const hit of hits) {
    if (hit.start < start || hit.end > end) continue;
    out += clean(text.slice(at, hit.start)) + MARK_OPEN + clean(text.slice(hit.start, hit.end)) +
      MARK_CLOSE;
    at = hit.end;
  }
  out += clean(text.slice(at, end));
  out = out.replace(/ {2,}/g, " ").trim();
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`;
}

function clean(text: string): string {
  return text
    // deno-lint-ignore no-control-regex -- control characters are what is replaced
    .replace(/[\s\u0000-\u001F\u007F-\u009F]+/g, " ")
    .replaceAll(MARK_OPEN, "‹")
    .replaceAll(MARK_CLOSE, "›");
}
