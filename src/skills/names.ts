/**
 * Name rules: which directory names skillgate can serve a skill under, and
 * which names the Agent Skills spec allows.
 *
 * @module
 */

import { CONTROL, isQuietlySkippedName } from "../files/served_name.ts";

/** Bytes of one directory name at most (the common file-system limit). */
export const MAX_NAME_BYTES = 255;
/** Characters of a spec-conformant skill name at most. */
export const MAX_SPEC_NAME_CHARS = 64;

const SPEC_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Bidirectional formatting marks (the served-file rule refuses the same ones). */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/**
 * Characters drawn as nothing (zero width space and joiners, soft hyphen,
 * word joiner, combining grapheme joiner, Hangul fillers, tags, variation
 * selectors...): Unicode's Default_Ignorable_Code_Point, which TR39's
 * skeleton drops. A name holding one displays exactly like another name.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * The named rules a skill folder's name can break (stable; named in the
 * `unusable-name` problem's detail).
 */
export type DirectoryNameRule =
  | "empty"
  | "leading-dot-or-dash"
  | "lone-surrogate"
  | "bidi-character"
  | "invisible-character"
  | "control-character"
  | "replacement-character"
  | "whitespace"
  | "percent"
  | "slash"
  | "too-long";

/**
 * Which rule a directory name breaks as a skill's name, or null when it can
 * name a skill: something a client can send back and every layer (URIs,
 * grants, paths, terminals) handles the same way. The same characters the
 * served-file rule (`src/files/served_name.ts`) refuses in a file's path are
 * refused here: controls (C0, DEL, C1, NUL), U+2028/U+2029, bidi marks
 * (U+202E and friends make a name read differently from what it is), U+FFFD
 * and lone surrogates (a name that did not decode cleanly). Also refused:
 * invisible characters (Default_Ignorable_Code_Point: `pdf` + U+200B displays
 * as `pdf`; review r11, after TR39's skeleton, which drops them); the
 * empty name, a leading `.` or `-`, whitespace, `%`, `/`, `\`, over 255
 * UTF-8 bytes.
 *
 * @param name A directory name (one path segment).
 * @returns The rule broken, or null.
 *
 * Rule source: skillgate discovery rules ("a directory name that is not
 * addressable is skipped"); the served-file rule for the characters.
 */
export function directoryNameRule(name: string): DirectoryNameRule | null {
  if (name.length === 0) return "empty";
  if (name.startsWith(".") || name.startsWith("-")) return "leading-dot-or-dash";
  if (!name.isWellFormed()) return "lone-surrogate";
  if (BIDI.test(name)) return "bidi-character";
  if (INVISIBLE.test(name)) return "invisible-character";
  if (CONTROL.test(name)) return "control-character";
  if (name.includes("\ufffd")) return "replacement-character";
  if (/\s/u.test(name)) return "whitespace";
  if (name.includes("%")) return "percent";
  if (name.includes("/") || name.includes("\\")) return "slash";
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) return "too-long";
  return null;
}

/**
 * Whether a directory name can serve as a skill's name; see
 * {@linkcode directoryNameRule} for the rules.
 *
 * @param name A directory name (one path segment).
 * @returns True when the name is usable.
 *
 * Rule source: skillgate discovery rules ("a directory name that is not
 * addressable is skipped").
 */
export function isUsableDirectoryName(name: string): boolean {
  return directoryNameRule(name) === null;
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

/**
 * The key under which two skill names are the same name: Unicode NFKC (the
 * normalisation the Agent Skills reference validator applies to names), then
 * case-folded (upper then lower case, so `ß`/`SS` and `ς`/`σ` fold together
 * as in full case folding), then NFKC again. Spec names are lowercase, so
 * `Pdf` and `pdf`, or the NFC and NFD spellings of `café`, are one name a
 * model or a user confirming a run could not tell apart.
 *
 * @param name A served skill name.
 * @returns The canonical key (for comparison only; never shown).
 *
 * Rule source: Agent Skills spec, frontmatter `name` (lowercase); the
 * reference validator (NFKC); review n7 (look-alike names served side by side).
 */
export function skillNameKey(name: string): string {
  return name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}
