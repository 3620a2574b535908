/**
 * THE rule that decides which of a skill's files are served: one string rule
 * on the path relative to the skill, applied to the path a client names AND
 * to the file's real path relative to the skill's real folder. The file
 * listing (`src/skills/_list_files.ts`) lists exactly the files this rule
 * passes, and every reader (the path gate, so `skill_load`, `skill_file`,
 * `resources/read`, SEP-2640 manifests and the start-up SKILL.md read) refuses
 * exactly the files it refuses: a file is never listed and then refused, or
 * served without being listed.
 *
 * Pure: touches no file.
 *
 * @module
 */

import { MAX_PATH_CHARS } from "../caps.ts";

/** The named rules a path can break (stable; shown in problems and refusals). */
export type ServedRule =
  | "empty"
  | "too-long"
  | "lone-surrogate"
  | "nul"
  | "control-character"
  | "bidi-character"
  | "replacement-character"
  | "backslash"
  | "percent"
  | "absolute"
  | "drive-prefix"
  | "empty-segment"
  | "dot-segment"
  | "blank-segment"
  | "hidden"
  | "node_modules";

/** Why a path is not served: the rule it breaks and a client-safe sentence. */
export interface RuleBreach {
  /** The rule broken. */
  readonly rule: ServedRule;
  /** Sentence-case message quoting only the relative path, no final period. */
  readonly message: string;
}

/**
 * Characters refused anywhere in a path: C0/C1 controls and DEL, line and
 * paragraph separators, and bidirectional formatting marks (they make a path
 * read differently from what it is, e.g. in a confirmation preview).
 */
export const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** The bidirectional formatting marks of {@linkcode CONTROL}: their own rule, `bidi-character`. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const DRIVE_PREFIX = /^[A-Za-z]:/;
const BLANK = /^\s+$/u;

/**
 * Checks a relative path against the served-file rule, touching no file.
 *
 * Rules: a non-empty string of at most {@linkcode MAX_PATH_CHARS} UTF-16 code
 * units, well-formed (no lone surrogates, which the OS layer would silently
 * replace); no NUL, control or line/paragraph separator (`control-character`)
 * or bidi character (`bidi-character`); no U+FFFD (a name that did not decode cleanly); no backslash; no `%` (no
 * percent-encoding is decoded or accepted); not absolute and no Windows drive
 * prefix (`C:`); split on `/`, no segment that is empty (so no `//` and no
 * trailing `/`), `.`, `..`, blank, hidden (starting with `.`) or
 * `node_modules` (any case). Look-alike characters (U+2024, U+FF0E, U+2215,
 * ...) are ordinary characters and pass.
 *
 * @param path A path relative to a skill's folder, `/`-separated.
 * @returns `null` when the path is served, else the rule it breaks.
 *
 * Source: the path rule in `/work/shared/notes/anchors.md`; hidden files and
 * `node_modules` are never served, as in discovery (issue 11 item 7: one rule
 * for the listing and every reader).
 */
export function checkServedPath(path: string): RuleBreach | null {
  if (typeof path !== "string") return breach("empty", "Path must be a string");
  if (path.length === 0) return breach("empty", "Path is empty");
  if (path.length > MAX_PATH_CHARS) {
    return breach(
      "too-long",
      `Path is longer than ${MAX_PATH_CHARS} characters (got ${path.length})`,
    );
  }
  const quoted = quotePath(path);
  if (!path.isWellFormed()) {
    return breach("lone-surrogate", `Path ${quoted} contains a lone surrogate`);
  }
  if (path.includes("\0")) return breach("nul", `Path ${quoted} contains a NUL character`);
  // Bidi marks first: they are in CONTROL too, and deserve their own rule (review n7).
  if (BIDI.test(path)) {
    return breach(
      "bidi-character",
      `Path ${quoted} contains a bidirectional formatting character (it makes the path read ` +
        "differently from what it is)",
    );
  }
  if (CONTROL.test(path)) {
    return breach("control-character", `Path ${quoted} contains a control character`);
  }
  if (path.includes("\ufffd")) {
    return breach(
      "replacement-character",
      `Path ${quoted} contains U+FFFD (a name that did not decode cleanly)`,
    );
  }
  if (path.includes("\\")) {
    return breach("backslash", `Path ${quoted} contains a backslash; use "/"`);
  }
  if (path.includes("%")) {
    return breach("percent", `Path ${quoted} contains "%"; percent-encoding is not accepted`);
  }
  if (path.startsWith("/")) {
    return breach("absolute", `Path ${quoted} is absolute; send a path relative to the skill`);
  }
  if (DRIVE_PREFIX.test(path)) {
    return breach("drive-prefix", `Path ${quoted} starts with a drive prefix`);
  }
  for (const segment of path.split("/")) {
    const found = checkSegment(segment);
    if (found !== null) return breach(found.rule, `Path ${quoted} ${found.message}`);
  }
  return null;
}

/**
 * Checks a file of a skill: the path it is reached by and, when that differs
 * (a symlink inside the skill), the path of its real location. Both must pass
 * {@linkcode checkServedPath}, so a symlink `notes.md -> .env` is not served
 * (and not listed) any more than `.env` itself.
 *
 * @param relPath The path relative to the skill's folder.
 * @param realRelPath The real path relative to the skill's real folder.
 * @returns `null` when served, else the rule broken; a breach of the real
 *   path says so and names the rule, quoting only `relPath`.
 */
export function checkServedFile(relPath: string, realRelPath: string): RuleBreach | null {
  const own = checkServedPath(relPath);
  if (own !== null || realRelPath === relPath) return own;
  const real = checkServedPath(realRelPath);
  if (real === null) return null;
  // The message names the rule, not the real path: a client learns nothing about
  // files it may not read.
  return breach(
    real.rule,
    `Path ${quotePath(relPath)} leads to a file that is not served (rule ${real.rule})`,
  );
}

/**
 * Whether an entry's own name is skipped without a report by discovery and
 * the file listing: dot-entries (`.git`, `.env`, ...) and `node_modules` (any
 * case). They are normal in a skill's folder, so they are neither served nor
 * reported; every other name the served rule refuses is reported.
 *
 * @param name One directory entry name.
 * @returns True when the entry is skipped silently.
 */
export function isQuietlySkippedName(name: string): boolean {
  return name.startsWith(".") || name.toLowerCase() === "node_modules";
}

/**
 * Quotes a path for a message: JSON string syntax, with every control,
 * separator and bidi character escaped as `\uXXXX` so a message cannot
 * carry one.
 *
 * @param path A relative path.
 * @returns The quoted path, e.g. `"a\u0000b"` for `a`, NUL, `b`.
 */
export function quotePath(path: string): string {
  return JSON.stringify(path).replace(
    CONTROL_ALL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const CONTROL_ALL = new RegExp(CONTROL.source, "gu");

function checkSegment(segment: string): { rule: ServedRule; message: string } | null {
  if (segment === "") return { rule: "empty-segment", message: "has an empty segment" };
  if (segment === "." || segment === "..") {
    return { rule: "dot-segment", message: `has a "${segment}" segment` };
  }
  if (BLANK.test(segment)) return { rule: "blank-segment", message: "has a blank segment" };
  if (segment.startsWith(".")) {
    return { rule: "hidden", message: `names a hidden entry "${segment}"` };
  }
  if (segment.toLowerCase() === "node_modules") {
    return { rule: "node_modules", message: `goes through "${segment}"` };
  }
  return null;
}

function breach(rule: ServedRule, message: string): RuleBreach {
  return { rule, message };
}
