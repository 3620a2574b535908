/**
 * The index cache's parse file (issue 13): one JSON line per SKILL.md
 * version (`[key, [dev, ino, size, mtime, ctime], {frontmatter, keyLines,
 * findings}]`) after a header line (`{"format", "version", "count"}`). Read
 * from the file's bytes, never as one string: when it is opened, the header,
 * every line's end and every line's key are read (a bad header, a line cut
 * or without its key, a key twice or a count that does not match makes the
 * whole file corrupt); an entry is parsed when it is first asked for (s18: the
 * 10,000 entries of a large catalog parsed at once took ~130 ms of the
 * serving worker's thread before discovery could start; asked for one by one,
 * each load's parse runs while the trusted part reads folders). An entry
 * whose line is not a sound entry is never used and marks the file damaged
 * (`onDamaged`).
 *
 * @module
 */

import type { ParsedSkillMd } from "./index_cache.ts";

/**
 * The header's format marker, so a foreign file is never taken for a cache.
 * Bumped when the same SKILL.md bytes parse differently (3: a key that is
 * not text is refused), so no entry of the old rule is used.
 */
export const PARSE_FORMAT = "skillgate-index-parses-3";

/** One stored parse: the version tuple and the parse. */
export interface StoredParse {
  readonly v: readonly (number | null)[];
  readonly p: ParsedSkillMd;
}

/**
 * A parse file's entries by key (a `Map` of them satisfies it too): `size`
 * and `has` answer from the keys read at open; `get` parses the entry's line
 * then (undefined, and the file's `onDamaged` told, when it is not a sound
 * entry).
 */
export interface ParseEntries {
  readonly size: number;
  has(key: string): boolean;
  get(key: string): StoredParse | undefined;
}

/** What reading a parse file gave. */
export type ParseLoad =
  | { readonly kind: "entries"; readonly entries: ParseEntries }
  | { readonly kind: "other-version" }
  | { readonly kind: "corrupt" };

const NEWLINE = 0x0a;
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * Reads a parse file's bytes: its header, and where each entry's line is by
 * its key; each entry is parsed when `get` asks for it.
 *
 * @param bytes The file's content (held while the entries are).
 * @param version The running skillgate version.
 * @param onDamaged Told each time `get` meets a line that is not a sound
 *   entry (it answers undefined for it). @default nothing
 * @returns The entries, `other-version` for another skillgate's file, or `corrupt`.
 */
export function readParseFile(
  bytes: Uint8Array,
  version: string,
  onDamaged: () => void = () => {},
): ParseLoad {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    const headEnd = bytes.indexOf(NEWLINE);
    // Every line, the last one too, ends with a newline: a file without it was cut.
    if (headEnd < 0) return { kind: "corrupt" };
    const head = JSON.parse(decoder.decode(bytes.subarray(0, headEnd))) as {
      format?: unknown;
      version?: unknown;
      count?: unknown;
    } | null;
    if (head?.format !== PARSE_FORMAT || !Number.isSafeInteger(head.count)) {
      return { kind: "corrupt" };
    }
    // Another skillgate version's entries may parse differently: start afresh.
    if (head.version !== version) return { kind: "other-version" };
    const starts = new Map<string, number>();
    for (let start = headEnd + 1; start < bytes.length;) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) return { kind: "corrupt" };
      const key = lineKey(bytes, start, end, decoder);
      if (key === null || starts.has(key)) return { kind: "corrupt" };
      starts.set(key, start);
      start = end + 1;
    }
    if (starts.size !== head.count) return { kind: "corrupt" };
    return {
      kind: "entries",
      entries: {
        size: starts.size,
        has: (key) => starts.has(key),
        get(key) {
          const start = starts.get(key);
          if (start === undefined) return undefined;
          try {
            const line = decoder.decode(bytes.subarray(start, bytes.indexOf(NEWLINE, start)));
            const item: unknown = JSON.parse(line);
            if (isEntry(item) && item[0] === key) return { v: item[1], p: item[2] };
          } catch {
            // Not UTF-8 or not JSON: damaged like a line of the wrong shape.
          }
          onDamaged();
          return undefined;
        },
      },
    };
  } catch {
    return { kind: "corrupt" };
  }
}

/**
 * The key of the entry line `bytes[start, end)`: the JSON string that opens
 * it (`["KEY",`), or null when the line does not open so.
 *
 * @throws {TypeError} When the key's bytes are not UTF-8.
 * @throws {SyntaxError} When they are not a JSON string.
 */
function lineKey(
  bytes: Uint8Array,
  start: number,
  end: number,
  decoder: TextDecoder,
): string | null {
  if (bytes[start] !== OPEN_BRACKET || bytes[start + 1] !== QUOTE) return null;
  // The closing quote: the first one after an even run of backslashes (native searches: a
  // loop over every byte ran ~50 ms for 10,000 lines in a fresh isolate).
  let at = start + 2;
  for (;;) {
    at = bytes.indexOf(QUOTE, at);
    if (at < 0 || at >= end) return null;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) break;
    at++;
  }
  if (bytes[at + 1] !== COMMA) return null;
  const key: unknown = JSON.parse(decoder.decode(bytes.subarray(start + 1, at + 1)));
  return typeof key === "string" ? key : null;
}

/**
 * Writes a parse file.
 *
 * @param version The running skillgate version.
 * @param entries The entries to store, by key.
 * @returns The file's bytes.
 */
export function writeParseFile(
  version: string,
  entries: ReadonlyMap<string, StoredParse>,
): Uint8Array {
  const lines = [JSON.stringify({ format: PARSE_FORMAT, version, count: entries.size })];
  for (const [key, entry] of entries) lines.push(JSON.stringify([key, entry.v, entry.p]));
  lines.push("");
  return new TextEncoder().encode(lines.join("\n"));
}

function isEntry(item: unknown): item is [string, (number | null)[], ParsedSkillMd] {
  if (!Array.isArray(item) || item.length !== 3 || typeof item[0] !== "string") return false;
  const version: unknown = item[1];
  if (!Array.isArray(version) || version.length !== 5) return false;
  if (!version.every((value) => value === null || typeof value === "number")) return false;
  const parsed = item[2] as Partial<ParsedSkillMd> | null;
  return typeof parsed === "object" && parsed !== null &&
    typeof parsed.frontmatter === "object" && parsed.frontmatter !== null &&
    !Array.isArray(parsed.frontmatter) && Array.isArray(parsed.keyLines) &&
    Array.isArray(parsed.findings);
}
