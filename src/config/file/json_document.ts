/**
 * Reading the owner's JSON files (the configuration file and overrides.json)
 * with a place for every finding: a syntax error, a duplicate key or a value
 * of the wrong shape names the file, line and column. `JSON.parse` gives no
 * position, so the text is parsed with npm `jsonc-parser` (Microsoft, the
 * parser behind VS Code's JSON support), comments and trailing commas
 * refused.
 *
 * @module
 */

import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";

/** A configuration or overrides file that cannot be used, with where and why. */
export class ConfigFileError extends Error {
  override name = "ConfigFileError";
  /**
   * @param file The file's path (as the owner named it, or the default).
   * @param line 1-based line of the finding.
   * @param column 1-based column (UTF-16 code units) of the finding.
   * @param detail What is wrong and what is expected, without the place.
   * @param key The key the finding is about (dotted for nested keys), when there is one.
   */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
    readonly key: string | null = null,
  ) {
    super(`${file}:${line}:${column}: ${detail}`);
  }
}

/** One key of a JSON object, with its value node. */
export interface JsonProperty {
  readonly key: string;
  /** Offset of the key's opening quote. */
  readonly keyOffset: number;
  readonly value: Node;
}

/** A parsed JSON document whose top level is an object. */
export interface JsonDocument {
  readonly file: string;
  readonly text: string;
  readonly root: Node;
  /** Builds the located error for `offset`. */
  errorAt(offset: number, detail: string, key?: string): ConfigFileError;
}

const SYNTAX_HINTS: Record<string, string> = {
  InvalidCommentToken: "comments are not JSON; remove them",
  PropertyNameExpected: "a key in double quotes was expected (a trailing comma is not JSON)",
  ValueExpected: "a value was expected (a trailing comma is not JSON)",
  CommaExpected: "a comma was expected between entries",
  ColonExpected: "a colon was expected after the key",
  CloseBraceExpected: "a closing } was expected",
  CloseBracketExpected: "a closing ] was expected",
  EndOfFileExpected: "the file should end after the top-level object",
  InvalidSymbol: "this is not JSON (strings take double quotes; true, false, null are lowercase)",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfComment: "a comment is not closed",
  InvalidUnicode: "a \\u escape is malformed",
  InvalidEscapeCharacter: "a backslash escape is malformed",
  InvalidCharacter: "a control character must be escaped inside a string",
  InvalidNumberFormat: "a number is malformed",
};

/**
 * Parses `text` as one JSON object.
 *
 * @param file The file's path, for messages.
 * @param text The file's content.
 * @returns The document.
 * @throws {ConfigFileError} On the first syntax error, when the top level is
 *   not an object, or when an object holds the same key twice; each with its
 *   line and column.
 */
export function parseJsonDocument(file: string, text: string): JsonDocument {
  const errorAt = (offset: number, detail: string, key?: string) => {
    const { line, column } = lineAndColumn(text, offset);
    return new ConfigFileError(file, line, column, detail, key ?? null);
  };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (first !== undefined) {
    const code = printParseErrorCode(first.error);
    throw errorAt(first.offset, `not valid JSON: ${SYNTAX_HINTS[code] ?? code}`);
  }
  if (root === undefined || root.type !== "object") {
    throw errorAt(root?.offset ?? 0, "the file must hold one JSON object ({ ... })");
  }
  refuseDuplicateKeys(root, errorAt);
  return { file, text, root, errorAt };
}

/**
 * The properties of an object node, in file order.
 *
 * @param node An object node of a parsed document.
 * @returns Each key with its value node.
 */
export function propertiesOf(node: Node): JsonProperty[] {
  const properties: JsonProperty[] = [];
  for (const child of node.children ?? []) {
    const [keyNode, value] = child.children ?? [];
    if (keyNode === undefined || value === undefined) continue;
    properties.push({ key: String(keyNode.value), keyOffset: keyNode.offset, value });
  }
  return properties;
}

/**
 * The plain value of a node (objects and arrays rebuilt).
 *
 * @param node Any node of a parsed document.
 * @returns The JSON value.
 */
export function valueOf(node: Node): unknown {
  if (node.type === "array") return (node.children ?? []).map(valueOf);
  if (node.type === "object") {
    return Object.fromEntries(propertiesOf(node).map((p) => [p.key, valueOf(p.value)]));
  }
  return node.value;
}

/**
 * The 1-based line and column of a character offset.
 *
 * @param text The file's content.
 * @param offset A UTF-16 offset into `text` (clamped to its length).
 * @returns Line and column, both from 1.
 */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/** The name of a JSON value's type, for messages. */
export function jsonTypeName(node: Node): string {
  if (node.type === "number") return Number.isInteger(node.value) ? "a number" : "a fraction";
  const names: Record<string, string> = {
    string: "a string",
    boolean: "a boolean",
    null: "null",
    array: "a list",
    object: "an object",
  };
  return names[node.type] ?? node.type;
}

function refuseDuplicateKeys(
  node: Node,
  errorAt: (offset: number, detail: string, key?: string) => ConfigFileError,
): void {
  if (node.type === "object") {
    const seen = new Set<string>();
    for (const property of propertiesOf(node)) {
      if (seen.has(property.key)) {
        throw errorAt(
          property.keyOffset,
          `"${property.key}" appears twice; keep one`,
          property.key,
        );
      }
      seen.add(property.key);
    }
  }
  for (const child of node.children ?? []) refuseDuplicateKeys(child, errorAt);
}
