/**
 * SKILL.md frontmatter: finding the YAML block between the `---` lines and
 * turning it into JSON values, refusing the YAML features that would make
 * two readers disagree (anchors, aliases, custom tags, non-finite numbers).
 *
 * @module
 */

import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { MAX_FRONTMATTER_BYTES } from "../caps.ts";
import { findUnsupportedNode, type YamlFinding } from "./_yaml_checks.ts";

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

/** A parsed frontmatter block. */
export interface ParsedFrontmatter {
  readonly ok: true;
  /** The top-level mapping as JSON values; `{}` when the block is empty. */
  readonly frontmatter: Record<string, unknown>;
  /** Everything after the closing `---` line's line ending, verbatim. */
  readonly body: string;
  /** 1-based line of the file on which the body starts. */
  readonly bodyStartLine: number;
  /** 1-based file line of each top-level key, for pointing findings at it. */
  readonly keyLines: ReadonlyMap<string, number>;
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
 * @returns The block and the verbatim body, or a failure with the line it concerns.
 *
 * Rule source: Agent Skills spec, "SKILL.md format"; block size capped at
 * `MAX_FRONTMATTER_BYTES` (64 KiB) of UTF-8.
 */
export function splitFrontmatter(text: string): FrontmatterSplit | FrontmatterFailure {
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
  if (firstEnd >= 0 && pos - yamlStart > MAX_FRONTMATTER_BYTES) return tooLong();
  return {
    ok: false,
    detail: "The frontmatter opened on line 1 is never closed. Add a line holding only '---' " +
      "after the last frontmatter field",
    line: 1,
    column: 1,
  };
}

/**
 * Parses the frontmatter of a SKILL.md text as YAML 1.2 (core schema, unique
 * keys, no merge keys) into JSON values. Refuses anchors and aliases, tags the
 * core schema does not define (`!!binary`, `!!timestamp`, custom tags), keys
 * that are lists or maps, and numbers that JSON cannot hold (`.inf`, `.nan`).
 * Dates stay strings. An empty block (or only comments) gives `{}`.
 *
 * @param text The whole SKILL.md (or its first bytes, when cut at the read cap).
 * @returns The frontmatter, the verbatim body and where each top-level key is;
 *   or a failure whose `line`/`column` are 1-based positions in the file.
 *
 * Rule source: Agent Skills spec, "SKILL.md format"; YAML 1.2.2, core schema.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter | FrontmatterFailure {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  const lineCounter = new LineCounter();
  const doc = parseDocument(split.yaml, {
    version: "1.2",
    schema: "core",
    uniqueKeys: true,
    merge: false,
    resolveKnownTags: false,
    prettyErrors: false,
    lineCounter,
  });
  const offset = split.yamlStartLine - 1;
  const at = (index: number) => {
    const pos = lineCounter.linePos(index);
    return { line: pos.line + offset, column: pos.col };
  };
  const error = doc.errors[0];
  if (error) {
    const { line, column } = at(error.pos[0]);
    return failure(`Frontmatter is not valid YAML: ${error.message}`, line, column);
  }
  const warning = doc.warnings[0];
  if (warning) {
    const { line, column } = at(warning.pos[0]);
    return failure(
      `Frontmatter uses YAML that skillgate does not accept: ${warning.message}. Remove it`,
      line,
      column,
    );
  }
  const finding: YamlFinding | null = findUnsupportedNode(doc, split.yaml);
  if (finding) {
    const { line, column } = at(finding.offset);
    return failure(finding.detail, line, column);
  }
  const keyLines = new Map<string, number>();
  const contents = doc.contents;
  if (contents === null) {
    return {
      ok: true,
      frontmatter: {},
      body: split.body,
      bodyStartLine: split.bodyStartLine,
      keyLines,
    };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 0 });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const { line, column } = at(contents.range[0]);
    const found = Array.isArray(value) ? "a list" : `the scalar "${String(value)}"`;
    return failure(
      `Frontmatter must be a mapping of keys to values, found ${found}. Write fields as 'key: value' lines`,
      line,
      column,
    );
  }
  if (isMap(contents)) {
    for (const pair of contents.items) {
      const key = pair.key;
      if (isScalar(key) && key.range) keyLines.set(String(key.value), at(key.range[0]).line);
    }
  }
  return {
    ok: true,
    frontmatter: value as Record<string, unknown>,
    body: split.body,
    bodyStartLine: split.bodyStartLine,
    keyLines,
  };
}

function failure(detail: string, line: number, column: number): FrontmatterFailure {
  return { ok: false, detail, line, column };
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
