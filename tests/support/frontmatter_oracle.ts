/**
 * An oracle for SKILL.md frontmatter, independent of skillgate's own parser.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";

/**
 * Parses the frontmatter block of a SKILL.md text with the `yaml` package
 * directly (YAML 1.2 core schema). A leading UTF-8 BOM is skipped and CRLF
 * line ends are accepted, as the Agent Skills clients do.
 *
 * @param text The SKILL.md text.
 * @returns The frontmatter as JSON values.
 * @throws {AssertionError} When the text has no frontmatter block.
 */
export function frontmatterOf(text: string): Record<string, unknown> {
  const block = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*\r?(?:\n|$)/.exec(text);
  assert.ok(block, "SKILL.md has a frontmatter block");
  return parse(block[1] as string, { version: "1.2", schema: "core" }) as Record<string, unknown>;
}
