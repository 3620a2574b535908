/**
 * Walks a parsed YAML document for the features frontmatter refuses, so that
 * the JSON it turns into is the same for every reader.
 *
 * @module
 */

import { type Document, isAlias, isPair, isScalar, visit } from "yaml";

/** A refused node: what is wrong and its character offset in the YAML text. */
export interface YamlFinding {
  readonly detail: string;
  readonly offset: number;
}

/**
 * Finds the first anchor, alias, non-scalar key, key that is not text (a
 * number, boolean or null), or non-finite number.
 *
 * @param doc A document parsed from `source`.
 * @param source The YAML text, for quoting the offending value.
 * @returns The first finding in document order, or null when there is none.
 */
export function findUnsupportedNode(doc: Document, source: string): YamlFinding | null {
  let found: YamlFinding | null = null;
  visit(doc, (_key, node) => {
    if (node === null || typeof node !== "object") return undefined;
    if (isAlias(node)) {
      found = {
        detail: `Frontmatter uses the YAML alias "*${node.source}"; anchors and aliases are not ` +
          "supported. Write the value out in full",
        offset: node.range?.[0] ?? 0,
      };
      return visit.BREAK;
    }
    if (isPair(node)) {
      const key = node.key;
      if (key !== null && !isScalar(key) && !isAlias(key)) {
        const range = (key as { range?: [number, number, number] }).range;
        const offset = range?.[0] ?? 0;
        const text = range ? source.slice(range[0], range[1]) : "";
        found = {
          detail:
            `Frontmatter has the key "${text}" that is a list or map; keys must be plain text`,
          offset,
        };
        return visit.BREAK;
      }
      if (isScalar(key) && typeof key.value !== "string") {
        // `1:`, `true:`, `~:` are a number, a boolean and null in YAML 1.2's core schema, which
        // JSON cannot hold as keys: readers disagree on them (`~` became ""), and the SEP-2640
        // clients refuse the skill ("key must be a string; quote it").
        const range = key.range;
        const text = range ? source.slice(range[0], range[1]) : String(key.value);
        found = {
          detail: `Frontmatter has the key "${text}", which YAML reads as ${
            key.value === null ? "null" : `a ${typeof key.value}`
          }, not text; quote it ("${text}":) or rename it`,
          offset: range?.[0] ?? 0,
        };
        return visit.BREAK;
      }
      return undefined;
    }
    const anchored = node as { anchor?: string; range?: [number, number, number] | null };
    if (anchored.anchor) {
      // A collection's range starts at its first item; point at the anchor itself.
      const start = anchored.range?.[0] ?? 0;
      const mark = source.lastIndexOf(`&${anchored.anchor}`, start);
      found = {
        detail: `Frontmatter uses the YAML anchor "&${anchored.anchor}"; anchors and aliases are ` +
          "not supported. Remove the anchor",
        offset: mark >= 0 ? mark : start,
      };
      return visit.BREAK;
    }
    if (isScalar(node) && typeof node.value === "number" && !Number.isFinite(node.value)) {
      const text = node.source ?? String(node.value);
      found = {
        detail: `Frontmatter holds the number "${text}" that JSON cannot represent. Quote it to ` +
          "keep it as text",
        offset: node.range?.[0] ?? 0,
      };
      return visit.BREAK;
    }
    return undefined;
  });
  return found;
}
