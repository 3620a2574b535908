/**
 * The configuration file: `$XDG_CONFIG_HOME/skillgate/config.json` (or
 * `--config` / `SKILLGATE_CONFIG`). It may set every option of the option
 * table under its camelCase flag name (`fileKeyOf`), plus `roots` and
 * `$schema`; every other key is an error. Each value is checked as the flag
 * would be, and a finding names the file, line, column, key and what is
 * expected. Read by the trusted part only: it is the owner's file, never
 * client input.
 *
 * @module
 */

import type { Node } from "jsonc-parser";
import { checkListEntry, UsageError } from "../cli.ts";
import { fileKeyOf, OPTIONS, type OptionSpec, type OptionValues } from "../options.ts";
import {
  type JsonDocument,
  jsonTypeName,
  parseJsonDocument,
  propertiesOf,
} from "./json_document.ts";

/** A configuration file that was read and checked. */
export interface ConfigFile {
  /** The file's path. */
  readonly path: string;
  /** Option values by option key, as typed in `OptionValues` (only those the file sets). */
  readonly values: ReadonlyMap<keyof OptionValues, unknown>;
  /** The file's `roots`, as written (resolved later against the file's folder), or null. */
  readonly roots: readonly string[] | null;
}

/** The keys the file takes besides the options. */
export const FILE_ONLY_KEYS = ["$schema", "roots"] as const;

/**
 * Checks a configuration file's text.
 *
 * @param path The file's path, for messages.
 * @param text Its content.
 * @returns The values it sets.
 * @throws {ConfigFileError} On invalid JSON, a top level that is not an
 *   object, a duplicate key, an unknown key, a key that cannot be set in the
 *   file (`config`, `noConfig`), a value of the wrong type or out of range;
 *   each located by line and column, naming the key.
 */
export function parseConfigFile(path: string, text: string): ConfigFile {
  const document = parseJsonDocument(path, text);
  const values = new Map<keyof OptionValues, unknown>();
  let roots: string[] | null = null;
  for (const property of propertiesOf(document.root)) {
    const { key, value } = property;
    if (key === "$schema") {
      if (value.type !== "string") throw expected(document, value, key, "a string (a schema URL)");
      continue;
    }
    if (key === "roots") {
      roots = stringList(document, value, key, (entry, node) => {
        if (entry.trim() === "") throw expected(document, node, key, "non-empty folder paths");
      });
      continue;
    }
    const option = OPTIONS.find((candidate) => fileKeyOf(candidate) === key);
    if (option === undefined && /token|secret|password/i.test(key)) {
      throw document.errorAt(
        property.keyOffset,
        `"${key}": secrets are never stored in the configuration file; name a file holding ` +
          `it instead ("httpTokenFile"), or set it in the environment`,
        key,
      );
    }
    if (option === undefined) {
      throw document.errorAt(
        property.keyOffset,
        `unknown key "${key}"${suggestion(key)}; the keys are listed in config.schema.json`,
        key,
      );
    }
    if (option.isFileKey === false) {
      throw document.errorAt(
        property.keyOffset,
        `"${key}" cannot be set inside the configuration file; use --${option.flag} or ${option.env}`,
        key,
      );
    }
    values.set(option.key, optionValue(document, option, key, value));
  }
  return { path, values, roots };
}

/** Reads one option's value the way its flag would be read, from a JSON node. */
function optionValue(document: JsonDocument, option: OptionSpec, key: string, node: Node): unknown {
  const kind = option.kind;
  switch (kind.type) {
    case "integer": {
      const what = `a whole number from ${kind.min} to ${kind.max}`;
      if (node.type !== "number" || !Number.isInteger(node.value)) {
        throw expected(document, node, key, what);
      }
      if (node.value < kind.min || node.value > kind.max) {
        throw expected(document, node, key, what, `${node.value}`);
      }
      return node.value;
    }
    case "boolean":
      if (node.type !== "boolean") throw expected(document, node, key, "true or false");
      return node.value;
    case "enum": {
      const what = `one of ${kind.values.map((v) => `"${v}"`).join(", ")}`;
      if (node.type !== "string") throw expected(document, node, key, what);
      if (!kind.values.includes(node.value)) {
        throw expected(document, node, key, what, JSON.stringify(node.value));
      }
      return node.value;
    }
    case "string":
      if (node.type !== "string" || node.value.trim() === "") {
        throw expected(document, node, key, "a non-empty string");
      }
      return node.value.trim();
    case "repeatable":
      // `"source": ["github:acme/skills", ...]`: one spec per entry, as the repeated flag.
      return stringList(document, node, key, (entry, entryNode) => {
        if (entry.trim() === "") {
          throw document.errorAt(entryNode.offset, `"${key}" entries must not be empty`, key);
        }
      });
    case "list":
      return stringList(document, node, key, (entry, entryNode) => {
        try {
          checkListEntry(entry, kind.entries, `"${key}"`);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          throw document.errorAt(entryNode.offset, error.message, key);
        }
      });
    case "port": {
      const what = `a port from 1 to 65535, true (port ${kind.defaultPort}) or false (stdio)`;
      if (node.type === "boolean") return node.value ? kind.defaultPort : null;
      if (node.type === "null") return null;
      if (node.type !== "number" || !Number.isInteger(node.value)) {
        throw expected(document, node, key, what);
      }
      if (node.value < 1 || node.value > 65_535) {
        throw expected(document, node, key, what, `${node.value}`);
      }
      return node.value;
    }
    default: {
      const unknownKind: never = kind;
      throw new Error(`No file reading for option kind ${JSON.stringify(unknownKind)}`);
    }
  }
}

function stringList(
  document: JsonDocument,
  node: Node,
  key: string,
  check: (entry: string, node: Node) => void,
): string[] {
  if (node.type !== "array") throw expected(document, node, key, "a list of strings");
  const entries: string[] = [];
  for (const child of node.children ?? []) {
    if (child.type !== "string") throw expected(document, child, key, "a list of strings");
    check(child.value, child);
    entries.push(child.value.trim());
  }
  return entries;
}

function expected(
  document: JsonDocument,
  node: Node,
  key: string,
  what: string,
  got?: string,
) {
  return document.errorAt(
    node.offset,
    `"${key}" must be ${what}, got ${got ?? jsonTypeName(node)}`,
    key,
  );
}

/**
 * " (did you mean "maxSkills"?)" for a key that differs from a real one only
 * in case, dashes or underscores, or by at most two edits.
 */
function suggestion(key: string): string {
  const fold = (text: string) => text.toLowerCase().replace(/[-_]/g, "");
  const keys = [...FILE_ONLY_KEYS, ...OPTIONS.filter((o) => o.isFileKey !== false).map(fileKeyOf)];
  const match = keys.find((candidate) => fold(candidate) === fold(key)) ??
    keys.find((candidate) => editDistance(fold(candidate), fold(key), 2) <= 2);
  return match === undefined ? "" : ` (did you mean "${match}"?)`;
}

/** Levenshtein distance, stopping early once it exceeds `limit` (then returns limit + 1). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit || a.length > 64 || b.length > 64) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
    }
    if (Math.min(...row) > limit) return limit + 1;
    previous = row;
  }
  return previous[b.length]!;
}
