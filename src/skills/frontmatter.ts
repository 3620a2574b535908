/**
 * SKILL.md frontmatter: finding the YAML block between the `---` lines and
 * turning it into JSON values, refusing the YAML features that would make
 * two readers disagree (anchors, aliases, custom tags, non-finite numbers).
 *
 * @module
 */

import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { findUnsupportedNode, type YamlFinding } from "./_yaml_checks.ts";
import {
  type FrontmatterFailure,
  type FrontmatterSplit,
  splitFrontmatter,
} from "./frontmatter_split.ts";
import { frontmatterBeforeParser } from "./frontmatter_quick.ts";

export {
  type FrontmatterFailure,
  type FrontmatterSplit,
  splitFrontmatter,
} from "./frontmatter_split.ts";

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

/**
 * Parses the frontmatter of a SKILL.md text as YAML 1.2 (core schema, unique
 * keys, no merge keys) into JSON values. Refuses anchors and aliases, tags the
 * core schema does not define (`!!binary`, `!!timestamp`, custom tags), keys
 * that are lists, maps, numbers, booleans or null (`1:`, `true:`, `~:`), and numbers that JSON cannot hold (`.inf`, `.nan`).
 * Dates stay strings. An empty block (or only comments) gives `{}`.
 *
 * @param text The whole SKILL.md (or its first bytes, when cut at the read cap).
 * @returns The frontmatter, the verbatim body and where each top-level key is;
 *   or a failure whose `line`/`column` are 1-based positions in the file.
 *
 * Rule source: Agent Skills spec, "SKILL.md format"; YAML 1.2.2, core schema.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter | FrontmatterFailure {
  // The plainest blocks need no YAML parser (issue 13); anything else is parsed below.
  const quick = frontmatterBeforeParser(text);
  return quick.decided !== null ? quick.decided : parseFrontmatterBlock(quick.split);
}

/**
 * {@linkcode parseFrontmatter} without the fast path: always the YAML
 * parser (the reference `frontmatter_plain.ts` is tested against).
 *
 * @param text The whole SKILL.md.
 * @returns As {@linkcode parseFrontmatter}.
 *
 * Rule source: YAML 1.2.2, core schema.
 */
export function parseFrontmatterWithYaml(text: string): ParsedFrontmatter | FrontmatterFailure {
  const split = splitFrontmatter(text);
  return split.ok ? parseFrontmatterBlock(split) : split;
}

/**
 * The YAML parser's half of {@linkcode parseFrontmatter}: parses a block
 * {@linkcode splitFrontmatter} found (the fast path is not tried).
 *
 * @param split The split SKILL.md.
 * @returns As {@linkcode parseFrontmatter}.
 *
 * Rule source: YAML 1.2.2, core schema.
 */
export function parseFrontmatterBlock(
  split: FrontmatterSplit,
): ParsedFrontmatter | FrontmatterFailure {
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
    // Review n7: a nesting bomb surfaced as the engine's "Maximum call stack size exceeded".
    if (/maximum call stack/i.test(error.message)) {
      return failure(
        "Frontmatter is nested too deeply to parse (lists or maps inside each other beyond " +
          "what the parser's stack holds); flatten it",
        line,
        column,
      );
    }
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
