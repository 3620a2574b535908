/**
 * Name rules: which directory names skillgate can serve a skill under, and
 * which names the Agent Skills spec allows.
 *
 * @module
 */

import { isQuietlySkippedName } from "../files/served_name.ts";

/** Bytes of one directory name at most (the common file-system limit). */
export const MAX_NAME_BYTES = 255;
/** Characters of a spec-conformant skill name at most. */
export const MAX_SPEC_NAME_CHARS = 64;

// deno-lint-ignore no-control-regex
const UNUSABLE = /[\s%/\\\u0000-\u001f\u007f-\u009f\ufffd]/u;
const SPEC_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Whether a directory name can serve as a skill's name: something a client
 * can send back and every layer (URIs, grants, paths) handles the same way.
 * Refuses the empty name; whitespace anywhere; `%`, `/`, `\`; control
 * characters (C0, DEL, C1, NUL); U+FFFD and lone surrogates (a name that did
 * not decode cleanly); a leading `.` or `-`; more than 255 UTF-8 bytes.
 *
 * @param name A directory name (one path segment).
 * @returns True when the name is usable.
 *
 * Rule source: skillgate discovery rules ("a directory name that is not
 * addressable is skipped").
 */
export function isUsableDirectoryName(name: string): boolean {
  if (name.length === 0 || name.startsWith(".") || name.startsWith("-")) return false;
  if (UNUSABLE.test(name) || !name.isWellFormed()) return false;
  return new TextEncoder().encode(name).length <= MAX_NAME_BYTES;
}

/**
 * Whether a name follows the Agent Skills naming rule: 1 to 64 characters of
 * lowercase `a`-`z`, digits and `-`, without a leading, trailing or doubled
 * `-`. (The reference validator also accepts lowercase Unicode letters after
 * NFKC; skillgate treats those as a spec deviation worth a warning.)
 *
 * @param name The name to check.
 * @returns True when the name conforms.
 *
 * Rule source: Agent Skills spec, frontmatter `name`.
 */
export function isSpecName(name: string): boolean {
  return name.length <= MAX_SPEC_NAME_CHARS && SPEC_NAME.test(name);
}

/**
 * Says what is wrong with a name under the Agent Skills naming rule.
 *
 * @param name The name to check.
 * @returns A sentence-case explanation without a final period, or null when
 *   the name conforms.
 *
 * Rule source: Agent Skills spec, frontmatter `name`.
 */
export function specNameIssue(name: string): string | null {
  if (isSpecName(name)) return null;
  if (name.length === 0) return "it is empty";
  const chars = [...name].length;
  if (chars > MAX_SPEC_NAME_CHARS) {
    return `it is ${chars} characters long and the limit is ${MAX_SPEC_NAME_CHARS}`;
  }
  if (name.startsWith("-") || name.endsWith("-")) return "it starts or ends with '-'";
  if (name.includes("--")) return "it holds a doubled '-'";
  return "it may only hold lowercase letters a-z, digits and '-'";
}

/**
 * Whether discovery and file listing pass over an entry: dot-entries
 * (`.git`, `.env`, ...) and `node_modules` (any case) are never scanned or
 * served (the served-file rule's quiet part, `src/files/served_name.ts`).
 *
 * @param name One directory entry name.
 * @returns True when the entry is skipped.
 *
 * Rule source: skillgate discovery rules ("dot-entries skipped").
 */
export function isSkippedEntryName(name: string): boolean {
  return isQuietlySkippedName(name);
}
