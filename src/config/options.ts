/**
 * The table of command-line options. Each option has a `SKILLGATE_*`
 * environment variable (containers configure through the environment); a flag
 * given on the command line wins over its variable. `--help` and README.md are
 * generated from / checked against this table.
 *
 * @module
 */

import type { Caps } from "../caps.ts";

/** An option that sets one numeric cap. */
export interface CapOption {
  /** Flag without the leading dashes, e.g. `max-skills`. */
  readonly flag: string;
  /** Environment variable, e.g. `SKILLGATE_MAX_SKILLS`. */
  readonly env: string;
  /** The cap it sets. */
  readonly cap: keyof Caps;
  /** Smallest accepted value. */
  readonly min: number;
  /** Largest accepted value. */
  readonly max: number;
  /** One line for `--help`. */
  readonly help: string;
}

/** The cap options, in `--help` order. */
export const CAP_OPTIONS: readonly CapOption[] = Object.freeze([
  {
    flag: "max-skills",
    env: "SKILLGATE_MAX_SKILLS",
    cap: "maxSkills",
    min: 1,
    max: 1_000_000,
    help: "most skills served across all roots (default 10000)",
  },
  {
    flag: "max-files-per-skill",
    env: "SKILLGATE_MAX_FILES_PER_SKILL",
    cap: "maxFilesPerSkill",
    min: 1,
    max: 1_000_000,
    help: "most files listed per skill (default 2000)",
  },
  {
    flag: "max-folders-per-skill",
    env: "SKILLGATE_MAX_FOLDERS_PER_SKILL",
    cap: "maxFoldersPerSkill",
    min: 1,
    max: 1_000_000,
    help: "most folders walked per skill (default 2000)",
  },
  {
    flag: "max-skill-md-bytes",
    env: "SKILLGATE_MAX_SKILL_MD_BYTES",
    cap: "maxSkillMdBytes",
    min: 1024,
    max: 16 * 1024 * 1024,
    help: "bytes of SKILL.md read; the body is truncated beyond (default 262144)",
  },
  {
    flag: "max-file-bytes",
    env: "SKILLGATE_MAX_FILE_BYTES",
    cap: "maxFileEntryBytes",
    min: 1024,
    max: 16 * 1024 * 1024,
    help: "bytes one skill_file entry returns before it is truncated (default 1048576)",
  },
  {
    flag: "max-call-bytes",
    env: "SKILLGATE_MAX_CALL_BYTES",
    cap: "maxCallBytes",
    min: 1024,
    max: 64 * 1024 * 1024,
    help: "bytes one skill_file call returns in all, decided from stat (default 4194304)",
  },
]);
