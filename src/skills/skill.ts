/**
 * The shapes of a discovered skill and of the catalog snapshot that every
 * request reads. A catalog is immutable: a refresh builds a new one and swaps
 * it whole, so a request never sees half an update.
 *
 * @module
 */

import type { SkillScripts } from "../scripts/skill_scripts.ts";
import type { Problem } from "./problem.ts";

/** One file of a skill, as listed by discovery. */
export interface SkillFile {
  /** Relative POSIX path inside the skill folder, e.g. `references/api.md`. */
  readonly path: string;
  /** Size in bytes at discovery time. */
  readonly size: number;
  /** Modification time in ms since the epoch, or null when unknown. */
  readonly mtimeMs: number | null;
  /**
   * Device id and inode number from the same stat, when discovery took them:
   * with size and mtime they name the exact file version listed (the digest
   * cache keys on them). Host facts: never shown to a client.
   */
  readonly dev?: number;
  readonly ino?: number | null;
  /** Status change time in ms from the same stat, when discovery took it (index cache key). */
  readonly ctimeMs?: number | null;
}

/** Where a root came from. */
export type RootOrigin =
  | "argument"
  | "SKILLS_DIR"
  | "MCP_SKILLS_PATH"
  | "config"
  | "default"
  | "remote";

/** One configured skill root. */
export interface Root {
  /** Absolute path as configured (lexically normalised, not realpath'd). */
  readonly path: string;
  readonly from: RootOrigin;
  /**
   * Served-name prefix: a skill in folder NAME is served as `PREFIX__NAME`
   * (URI `skill://PREFIX/NAME/...`). Remote sources always have one; a local
   * root takes one with `--root-prefix`. Absent: served by folder name.
   */
  readonly prefix?: string;
  /** For a remote source: its canonical spec (`github:owner/repo...`). */
  readonly source?: string;
  /**
   * Findings about the root itself that discovery reports first (a remote
   * source served offline, from its last good copy, or not at all).
   */
  readonly notes?: readonly Problem[];
  /** True when nothing can be served from it (a remote source with no good copy). */
  readonly isUnavailable?: boolean;
}

/** A served skill. */
export interface Skill {
  /**
   * The served name, the skill's identity (grants are keyed on it): the
   * directory name, or `PREFIX__NAME` under a root with a prefix.
   */
  readonly name: string;
  /** Under a root with a prefix: the directory name (NAME of `PREFIX__NAME`). */
  readonly baseName?: string;
  /** Under a root with a prefix: the prefix. */
  readonly prefix?: string;
  /** A remote source's spec when the skill came from one (scripts then need a grant row). */
  readonly source?: string;
  /** Absolute lexical path of the skill folder under its root. */
  readonly dir: string;
  /** Real path of the skill folder (inside its root's real path). */
  readonly realDir: string;
  /** The root path it was found under (as in {@linkcode Root.path}). */
  readonly root: string;
  /** File name of the instructions: `SKILL.md`, or `skill.md` (served with a warning). */
  readonly skillMdFile: string;
  /** The parsed frontmatter, as JSON values. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Frontmatter `description`, non-empty. */
  readonly description: string;
  /** Frontmatter `when-to-use` (or `when_to_use`) when it is a string. */
  readonly whenToUse?: string;
  /**
   * Everything after the closing `---` line, verbatim (within the read cap),
   * when held in memory: catalogs built from disk leave it out (issue 13,
   * lazy bodies) and `readSkillBody()` reads it through the gate when asked.
   */
  readonly body?: string;
  /** Whether SKILL.md was longer than the read cap, so `body` is cut. */
  readonly bodyTruncated: boolean;
  /** Size of the SKILL.md file in bytes. */
  readonly skillMdBytes: number;
  /** Every file, sorted by path (code-unit order), SKILL.md included. */
  readonly files: readonly SkillFile[];
  /** Sum of file sizes in bytes. */
  readonly bytes: number;
  /** Whether the file walk stopped at a cap (files or folders). */
  readonly filesTruncated: boolean;
  /**
   * The `mcp-host` declaration and the declared scripts whose files exist
   * (`src/scripts/skill_scripts.ts`); null or absent when none is declared.
   */
  readonly scripts?: SkillScripts | null;
  /**
   * True when live refresh found this skill's SKILL.md unparseable and kept
   * serving this, its last good version (the problem is reported).
   */
  readonly isLastGood?: boolean;
  /**
   * What the owner's `overrides.json` narrowed (`src/skills/overrides.ts`):
   * `modelInvocable: false` keeps it out of the model's catalog and search,
   * `userInvocable: false` drops its prompt. Absent when nothing is.
   */
  readonly override?: { readonly modelInvocable?: false; readonly userInvocable?: false };
}

/** An immutable snapshot of everything served. */
export interface Catalog {
  readonly roots: readonly Root[];
  /** Served skills sorted by name. */
  readonly skills: readonly Skill[];
  readonly byName: ReadonlyMap<string, Skill>;
  /** Every problem found, in discovery order. */
  readonly problems: readonly Problem[];
}
