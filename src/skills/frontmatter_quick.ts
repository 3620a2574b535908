/**
 * What {@linkcode import("./frontmatter.ts").parseFrontmatter} answers
 * without the YAML parser: a SKILL.md whose `---` block cannot be found, or
 * whose block is on `frontmatter_plain.ts`'s fast path. This module imports
 * no YAML code, so a cold catalog build whose every SKILL.md is that plain
 * never loads `npm:yaml` (issue 13: loading it was most of a cold 12-skill
 * build, ~30-45 ms before the first answer).
 *
 * @module
 */

import type { ParsedFrontmatter } from "./frontmatter.ts";
import {
  type FrontmatterFailure,
  type FrontmatterSplit,
  splitFrontmatter,
} from "./frontmatter_split.ts";
import { parsePlainFrontmatter } from "./frontmatter_plain.ts";

/**
 * `parseFrontmatter`'s answer when it needs no YAML parser (`decided`), or
 * the split block the parser must read (`decided: null`).
 */
export type FrontmatterBeforeParser =
  | { readonly decided: ParsedFrontmatter | FrontmatterFailure }
  | { readonly decided: null; readonly split: FrontmatterSplit };

/**
 * Splits a SKILL.md and, when its block is on the fast path, gives the
 * mapping exactly as the YAML parser would (`frontmatter_plain.ts` states
 * the subset; `tests/skills/frontmatter_plain_test.ts` checks the two agree).
 * Pure.
 *
 * @param text The whole SKILL.md (or its first bytes, when cut at the read cap).
 * @param options `readCapBytes`: the read cap when `text` was cut at it (see
 *   `splitFrontmatter`). @default null (the whole file)
 * @returns `decided`: the split failure or the parsed frontmatter, as
 *   `parseFrontmatter` returns them; or `decided: null` with the split block
 *   when only the YAML parser can decide.
 *
 * Rule source: Agent Skills spec, "SKILL.md format"; YAML 1.2.2, core schema.
 */
export function frontmatterBeforeParser(
  text: string,
  options: { readonly readCapBytes?: number | null } = {},
): FrontmatterBeforeParser {
  const split = splitFrontmatter(text, options);
  if (!split.ok) return { decided: split };
  const plain = parsePlainFrontmatter(split.yaml, split.yamlStartLine);
  if (plain === null) return { decided: null, split };
  return {
    decided: {
      ok: true,
      frontmatter: plain.frontmatter,
      body: split.body,
      bodyStartLine: split.bodyStartLine,
      keyLines: plain.keyLines,
    },
  };
}
