/**
 * A fast path for the plainest frontmatter blocks: `key: value` lines whose
 * values are unambiguous strings, and mappings of such lines one level
 * deep (`metadata:` then indented `key: value` lines). Most SKILL.md files
 * are written that way, and a cold start at 10,000 skills spent about a
 * fifth of its catalog build in the YAML parser (issue 13).
 *
 * It never decides anything the YAML parser would decide differently: a
 * block is accepted only when every line is in the subset below, and then
 * the result is what YAML 1.2 (core schema) gives for it; any other block
 * (comments, lists, flow collections, block scalars, anchors, tags, keys or
 * values that could be read as anything but a string, multi-line values,
 * tabs, control characters, duplicate keys, an empty block) returns null
 * and goes to the parser. `tests/skills/frontmatter_plain_test.ts` checks
 * both agree on every block the fast path accepts.
 *
 * The subset, per line (LF or CRLF endings):
 * - a top-level key at column 1, then `: ` and a value; or the key, `:` and
 *   nothing, followed by at least one line indented by the same number of
 *   spaces (1 or more), each `key: value` (a nested mapping);
 * - a key: an ASCII letter, then ASCII letters, digits, `_` or `-`, at
 *   most 1,000 characters (YAML's implicit keys stop at 1,024);
 * - a value: a plain scalar that starts with an ASCII letter, holds no `#`,
 *   no `: `, no tab or control character, does not end with `:` or a space,
 *   and is not `null`, `true` or `false` in any YAML 1.2 spelling; or a
 *   double-quoted string without `\` or `"` inside; or a single-quoted
 *   string without `'` inside.
 *
 * @module
 */

/** What the fast path gives: the mapping and the 1-based file line of each top-level key. */
export interface PlainFrontmatter {
  readonly frontmatter: Record<string, unknown>;
  readonly keyLines: ReadonlyMap<string, number>;
}

const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
/**
 * Longest key taken, in characters: YAML 1.2 limits an implicit key to 1024
 * characters and `npm:yaml` refuses a longer one, so those
 * go to the parser (review r1).
 */
const MAX_KEY_CHARS = 1_000;
/** Plain scalars the core schema reads as null or a boolean (all start with a letter). */
const NOT_STRINGS: ReadonlySet<string> = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
]);
/** Characters that keep a value off the fast path wherever they appear. */
// deno-lint-ignore no-control-regex
const AWKWARD = /[\u0000-\u001f\u007f-\u009f#\u2028\u2029\ufeff\ud800-\udfff]/;

/**
 * Reads a frontmatter block when it is in the plain subset.
 *
 * @param yaml The block between the `---` lines (`FrontmatterSplit.yaml`).
 * @param yamlStartLine The 1-based file line the block starts on.
 * @returns The mapping and key lines, or null when the block is not in the
 *   subset (the caller then parses it as YAML).
 */
export function parsePlainFrontmatter(
  yaml: string,
  yamlStartLine: number,
): PlainFrontmatter | null {
  const lines = yaml.split("\n");
  // The block ends with the line ending before the closing fence: one empty last piece.
  if (lines.pop() !== "") return null;
  const frontmatter: Record<string, unknown> = {};
  const keyLines = new Map<string, number>();
  let nested: Record<string, unknown> | null = null;
  let indent = 0;
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index] as string;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (nested !== null && line.startsWith(" ")) {
      const depth = line.length - line.trimStart().length;
      if (indent === 0) indent = depth;
      if (depth !== indent) return null;
      const pair = splitPair(line.slice(depth));
      if (pair === null || pair.value === null || Object.hasOwn(nested, pair.key)) return null;
      nested[pair.key] = pair.value;
      continue;
    }
    // A mapping key with no indented line after it is null in YAML: not in the subset.
    if (nested !== null && indent === 0) return null;
    nested = null;
    const pair = splitPair(line);
    if (pair === null || Object.hasOwn(frontmatter, pair.key)) return null;
    keyLines.set(pair.key, yamlStartLine + index);
    if (pair.value === null) {
      nested = {};
      indent = 0;
      frontmatter[pair.key] = nested;
    } else {
      frontmatter[pair.key] = pair.value;
    }
  }
  if (nested !== null && indent === 0) return null;
  if (keyLines.size === 0) return null;
  return { frontmatter, keyLines };
}

/** `key: value` (value null for `key:` alone), or null when outside the subset. */
function splitPair(line: string): { key: string; value: string | null } | null {
  const colon = line.indexOf(":");
  if (colon <= 0) return null;
  const key = line.slice(0, colon);
  // `true: x` has a boolean key in YAML: not in the subset.
  if (key.length > MAX_KEY_CHARS || !KEY.test(key) || NOT_STRINGS.has(key)) return null;
  if (colon === line.length - 1) return { key, value: null };
  if (line[colon + 1] !== " ") return null;
  const value = plainValue(line.slice(colon + 2));
  return value === null ? null : { key, value };
}

/** The string a value stands for, or null when it is not certainly a string in the subset. */
function plainValue(text: string): string | null {
  if (text.length === 0 || AWKWARD.test(text)) return null;
  const first = text.charCodeAt(0);
  if (first === 0x22 || first === 0x27) {
    // "..." without escapes or inner quotes; '...' without inner quotes.
    if (text.length < 2 || text.charCodeAt(text.length - 1) !== first) return null;
    const inner = text.slice(1, -1);
    if (inner.includes(text[0] as string) || (first === 0x22 && inner.includes("\\"))) return null;
    return inner;
  }
  const isLetter = (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a);
  if (!isLetter) return null;
  if (text.includes(": ") || text.endsWith(":") || text.endsWith(" ")) return null;
  if (NOT_STRINGS.has(text)) return null;
  return text;
}
