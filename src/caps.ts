/**
 * Every cap skillgate enforces, in one place. Units are in the names. The
 * configurable ones can be changed through `Config.caps` (see
 * `src/config/config.ts`); the rest are fixed because a protocol or the
 * safety argument depends on them.
 *
 * @module
 */

/** Caps that an owner may change through options or `SKILLGATE_*` variables. */
export interface Caps {
  /** Most skills served across all roots. @default 10000 */
  readonly maxSkills: number;
  /** Most files listed per skill (SKILL.md included). @default 2000 */
  readonly maxFilesPerSkill: number;
  /** Most folders walked per skill. @default 2000 */
  readonly maxFoldersPerSkill: number;
  /** Bytes of SKILL.md read; beyond it the body is truncated and says so. @default 262144 (256 KiB) */
  readonly maxSkillMdBytes: number;
  /** Bytes one `skill_file` entry returns before it is truncated. @default 1048576 (1 MiB) */
  readonly maxFileEntryBytes: number;
  /** Bytes one `skill_file` call may return in all, decided from stat. @default 4194304 (4 MiB) */
  readonly maxCallBytes: number;
}

/** The defaults of {@linkcode Caps}. */
export const DEFAULT_CAPS: Caps = Object.freeze({
  maxSkills: 10_000,
  maxFilesPerSkill: 2_000,
  maxFoldersPerSkill: 2_000,
  maxSkillMdBytes: 256 * 1024,
  maxFileEntryBytes: 1024 * 1024,
  maxCallBytes: 4 * 1024 * 1024,
});

/** Bytes of frontmatter parsed at most (between the `---` lines). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Entries in one `skill_file` call. */
export const MAX_FILE_ENTRIES_PER_CALL = 8;
/** Characters in one relative path handed to the path gate. */
export const MAX_PATH_CHARS = 1024;
/** Folder levels below a root (or its `skills/` container) searched for skills. */
export const MAX_GROUP_DEPTH = 3;
/** Default and largest page of `skill_list`. */
export const DEFAULT_LIST_LIMIT = 100;
/** Largest page of `skill_list`. */
export const MAX_LIST_LIMIT = 1_000;
/** Characters of a `skill_list` query. */
export const MAX_QUERY_CHARS = 256;
