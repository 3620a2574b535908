/**
 * Finding a SKILL.md's frontmatter block between its `---` lines, without
 * parsing it: what reading a body needs. Kept apart from the YAML parser
 * (`frontmatter.ts`) so a server that only serves bodies, or starts from its
 * index cache, does not load `npm:yaml` (issue 13: the first answer after
 * spawn pays only for what it needs).
 *
 * @module
 */

import { MAX_FRONTMATTER_BYTES } from "../caps.ts";

/** The pieces of a SKILL.md whose frontmatter block was found. */
export interface FrontmatterSplit {
  readonly ok: true;
  /** The text between the `---` lines, line endings kept. */
  readonly yaml: string;
  /** 1-based line of the file on which {@linkcode FrontmatterSplit.yaml} starts (always 2). */
  readonly yamlStartLine: number;
  /** Everything after the closing `---` line's line ending, verbatim. */
  readonly body: string;
  /** 1-based line of the file on which the body starts. */
  readonly bodyStartLine: number;
}

/** Why frontmatter could not be found or parsed; `line`/`column` are 1-based in the file. */
export interface FrontmatterFailure {
  readonly ok: false;
  readonly detail: string;
  readonly line?: number;
  readonly column?: number;
}

const FENCE = /^---[ \t]*\r?$/;
const BOM = "\uFEFF";

/**
 * Finds the frontmatter block of a SKILL.md text. It must open with `---` on
 * line 1 and closes at the first later line that is exactly `---` (trailing
 * spaces or tabs and a CR allowed); an indented `---` or one with other text
 * on its line does not close it. A leading UTF-8 BOM is ignored.
 *
 * @param text The whole SKILL.md (or its first bytes, when cut at the read cap).
 * @param options `readCapBytes`: the read cap (`--max-skill-md-bytes`) when
 *   `text` was cut at it (the file is longer), so a block that does not close
 *   within `text` is reported as not closing within the read, naming the cap
 *   and the option, never as "never closed" (review s15 L3: it closed beyond
 *   the read). @default null (`text` is the whole file)
 * @returns The block and the verbatim body, or a failure with the line it concerns.
 *
 * Rule source: Agent Skills spec, "SKILL.md format"; block size capped at
 * `MAX_FRONTMATTER_BYTES` (64 KiB) of UTF-8.
 */
export function splitFrontmatter(
  text: string,
  options: { readonly readCapBytes?: number | null } = {},
): FrontmatterSplit | FrontmatterFailure {
  const source = text.startsWith(BOM) ? text.slice(1) : text;
  const firstEnd = source.indexOf("\n");
  const firstLine = firstEnd < 0 ? source : source.slice(0, firstEnd);
  if (!FENCE.test(firstLine)) {
    return {
      ok: false,
      detail: "SKILL.md does not start with a '---' line. Put the YAML frontmatter between " +
        "'---' lines at the very top of the file",
      line: 1,
      column: 1,
    };
  }
  const yamlStart = firstEnd + 1;
  let pos = yamlStart;
  let line = 2;
  while (firstEnd >= 0 && pos - yamlStart <= MAX_FRONTMATTER_BYTES) {
    const end = source.indexOf("\n", pos);
    const current = end < 0 ? source.slice(pos) : source.slice(pos, end);
    if (FENCE.test(current)) {
      const yaml = source.slice(yamlStart, pos);
      if (utf8Length(yaml) > MAX_FRONTMATTER_BYTES) return tooLong();
      const body = end < 0 ? "" : source.slice(end + 1);
      return { ok: true, yaml, yamlStartLine: 2, body, bodyStartLine: line + 1 };
    }
    if (end < 0) break;
    pos = end + 1;
    line++;
  }
  // Lines past the block cap were not looked at: too long, wherever it closes.
  if (firstEnd >= 0 && pos - yamlStart > MAX_FRONTMATTER_BYTES) return tooLong();
  // The whole text was looked at. Past the cap counting an unterminated last line (one long
  // line was "never closed" before, however far past the cap it ran).
  const isPastCap = firstEnd >= 0 &&
    utf8Length(source.slice(yamlStart)) > MAX_FRONTMATTER_BYTES;
  const readCapBytes = options.readCapBytes ?? null;
  if (readCapBytes !== null) return cutBeforeClosed(readCapBytes, isPastCap);
  if (isPastCap) return tooLong();
  return {
    ok: false,
    detail: "The frontmatter opened on line 1 is never closed. Add a line holding only '---' " +
      "after the last frontmatter field",
    line: 1,
    column: 1,
  };
}

function tooLong(): FrontmatterFailure {
  return {
    ok: false,
    detail: `The frontmatter is longer than ${MAX_FRONTMATTER_BYTES} bytes. Move long text into ` +
      "the body or a reference file",
    line: 1,
    column: 1,
  };
}

/** The block does not close within the read, which was cut at `readCapBytes`. */
function cutBeforeClosed(readCapBytes: number, isPastCap: boolean): FrontmatterFailure {
  return {
    ok: false,
    detail: `The frontmatter does not close within the first ${readCapBytes} bytes of SKILL.md, ` +
      "which is all that is read (--max-skill-md-bytes)" +
      (isPastCap
        ? `, and is longer than ${MAX_FRONTMATTER_BYTES} bytes already. Move long text into the ` +
          "body or a reference file"
        : ". Move long text into the body or a reference file, or raise --max-skill-md-bytes"),
    line: 1,
    column: 1,
  };
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
