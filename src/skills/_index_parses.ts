/**
 * The index cache's parse file (issue 13): one JSON line per SKILL.md
 * version (`[key, [dev, ino, size, mtime, ctime], {frontmatter, keyLines,
 * findings}]`) after a header line (`{"format", "version", "count"}`). Read
 * line by line from the file's bytes, so start-up never holds the whole file
 * as one string nor parses it in one piece; a line that is not a sound entry,
 * or a count that does not match (a cut file), makes the whole file corrupt.
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

/** What reading a parse file gave. */
export type ParseLoad =
  | { readonly kind: "entries"; readonly entries: Map<string, StoredParse> }
  | { readonly kind: "other-version" }
  | { readonly kind: "corrupt" };

const NEWLINE = 0x0a;

/**
 * Reads a parse file's bytes.
 *
 * @param bytes The file's content.
 * @param version The running skillgate version.
 * @returns The entries by key, `other-version` for another skillgate's file, or `corrupt`.
 */
export function readParseFile(bytes: Uint8Array, version: string): ParseLoad {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  const nextLine = (): string | null => {
    if (start >= bytes.length) return null;
    const end = bytes.indexOf(NEWLINE, start);
    // Every line, the last one too, ends with a newline: a file without it was cut.
    if (end < 0) throw new SyntaxError("Unterminated line");
    const line = decoder.decode(bytes.subarray(start, end));
    start = end + 1;
    return line;
  };
  try {
    const head = JSON.parse(nextLine() ?? "null") as {
      format?: unknown;
      version?: unknown;
      count?: unknown;
    } | null;
    if (head?.format !== PARSE_FORMAT || !Number.isSafeInteger(head.count)) {
      return { kind: "corrupt" };
    }
    // Another skillgate version's entries may parse differently: start afresh.
    if (head.version !== version) return { kind: "other-version" };
    const entries = new Map<string, StoredParse>();
    for (let line = nextLine(); line !== null; line = nextLine()) {
      const item: unknown = JSON.parse(line);
      if (!isEntry(item)) return { kind: "corrupt" };
      entries.set(item[0], { v: item[1], p: item[2] });
    }
    return entries.size === head.count ? { kind: "entries", entries } : { kind: "corrupt" };
  } catch {
    return { kind: "corrupt" };
  }
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
