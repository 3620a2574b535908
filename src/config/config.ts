/**
 * The frozen configuration the trusted part hands to the worker. Built once by
 * `parseCommandLine()` from argv and the environment; nothing else reads the
 * world.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import type { Root } from "../skills/skill.ts";
import type { OptionValues } from "./options.ts";
import type { RemoteSource } from "../remote/remote_source.ts";

/** What the command line asked for. */
export type Command =
  | "serve"
  | "list"
  | "validate"
  | "permissions"
  | "config"
  | "sync"
  | "help"
  | "version";

/** Where an option's value came from; precedence is flag > variable > file > default. */
export type OptionSource = "flag" | "variable" | "file" | "default";

/** The script-running settings, from the security-first anchor's variables. */
export interface ScriptSettings {
  /**
   * Raw `MCP_SKILL_RUN` (the owner's grant, a JSON list), or null when unset; a set but blank
   * value is kept as it is (it grants nothing, see `parseGrant`).
   */
  readonly grantJson: string | null;
  /** `MCP_CONFIRM_MODE`: `ask-user` (default), `auto` or `refuse`. */
  readonly confirmMode: "ask-user" | "auto" | "refuse";
  /** `MCP_CONFIRM_SECRET`: HMAC key shared across replicas, or null for a random one. */
  readonly confirmSecret: string | null;
  /** `MCP_CONFIRM_TTL_SECONDS`: confirmation token lifetime. @default 600 */
  readonly confirmTtlSeconds: number;
  /** `MCP_SKILL_ALLOW_UNSCRUBBED=1`: run scripts hosted even if the environ scrub failed. */
  readonly allowUnscrubbed: boolean;
  /** `MCP_DATA_DIR`: a data folder handed to scripts, or null. */
  readonly dataDir: string | null;
  /**
   * The script variables (`MCP_SKILL_RUN`, `MCP_CONFIRM_MODE`,
   * `MCP_CONFIRM_SECRET`, `MCP_CONFIRM_TTL_SECONDS`,
   * `MCP_SKILL_ALLOW_UNSCRUBBED`) whose value holds an unsubstituted
   * placeholder (`${VAR}`, `${env:VAR}`, `{{VAR}}`, ...; see
   * `hasPlaceholder()`), in that order. Any entry means a host meant to set it and
   * did not: no script runs (the grant says why). Empty normally.
   */
  readonly unsubstituted: readonly string[];
}

/** Everything the program needs to know, decided at start-up. Frozen. */
export interface Config {
  readonly command: Command;
  /** Skill roots, absolute, in the order given, without duplicates. */
  readonly roots: readonly Root[];
  /** `validate`: the skill folders (or roots) to check, absolute. */
  readonly targets: readonly string[];
  /**
   * Whether a host runner started us (MCP_SKILLS_PATH, MCP_HOST_METER_FILE,
   * MCP_DATA_DIR or MCP_BLOB_BASE_URL set). Hosted moves defaults closed.
   */
  readonly hosted: boolean;
  /** Which variable marked the server hosted, when it is. */
  readonly hostedBy: string | null;
  readonly caps: Caps;
  /** Every option's value (see `src/config/options.ts`). */
  readonly options: Readonly<OptionValues>;
  readonly scripts: ScriptSettings;
  /**
   * HTTP bearer token (never from a flag value): `SKILLGATE_HTTP_TOKEN`, or,
   * once the trusted part ran `settleHttpToken()` at start-up, the contents of
   * `--http-token-file`. Null when no token is configured.
   */
  readonly httpToken: string | null;
  /**
   * Things the owner should know about how the command line was read (for
   * example, `MCP_SKILLS_PATH` replacing the ROOT arguments), one sentence
   * each; the trusted part prints each to stderr. Empty when there are none.
   */
  readonly notices: readonly string[];
  /**
   * The persistent index cache's folder (absolute), or null when none is kept
   * (`--no-index-cache`, or no cache home known). Only the worker reads and
   * writes it; it is an optimisation, never trusted (`src/skills/index_cache.ts`).
   */
  readonly indexCacheDir: string | null;
  /**
   * Where `indexCacheDir` comes from (`--index-cache`, `$XDG_CACHE_HOME`...),
   * or why there is none ("off: ..."), for `skillgate config`. Absent in
   * configurations built by hand (tests).
   */
  readonly indexCacheWhy?: string;
  /**
   * Where each option's value came from, by option key (see
   * `src/config/options.ts`). Absent in configurations built by hand (tests).
   */
  readonly sources?: Readonly<Record<string, OptionSource>>;
  /** The configuration file that was read, or null when none was. */
  readonly configFile?: string | null;
  /**
   * The options given on the command line, in order, each one word
   * (`--static`, `--tools=never`; a file option's value made absolute), so the
   * banner's `claude mcp add` line starts the configuration that was tested.
   * Absent in configurations built by hand (tests) and for --help/--version.
   */
  readonly commandLineOptions?: readonly string[];
  /**
   * Remote sources, parsed, each owner on `--github-allow` and each
   * publisher's origin on `--well-known-allow` (a source off its list stops start-up). Empty when none is configured.
   */
  readonly remoteSources: readonly RemoteSource[];
  /** The lock file, absolute (`--lock`, or `skillgate.lock` in the working directory). */
  readonly lockPath: string;
  /** `sync --update SPEC...`: the canonical specs to move; empty means all. */
  readonly updateSpecs: readonly string[];
}
