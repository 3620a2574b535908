/**
 * The table of command-line options. Each option has a `SKILLGATE_*`
 * environment variable (containers configure through the environment) and a
 * key in the configuration file (its flag in camelCase, see `fileKeyOf`);
 * per option a flag wins over its variable, which wins over the file.
 * `--help` and `config.schema.json` (`make schema`) are generated from this
 * table, and a test checks README.md names every entry. An option added here
 * is settable from the file at once; give it a `narrowing` rule when some
 * changes of it narrow (otherwise a hosted file cannot set it and a live
 * edit of it waits for a restart).
 *
 * @module
 */

import { type Caps, DEFAULT_CAPS } from "../caps.ts";

/** How an option's value is read. */
export type OptionKind =
  | { readonly type: "integer"; readonly min: number; readonly max: number }
  | { readonly type: "enum"; readonly values: readonly string[] }
  | { readonly type: "boolean" }
  | { readonly type: "string" }
  | {
    readonly type: "list";
    /** What each entry must be: `host[:port]` or an origin; anything when absent. */
    readonly entries?: "host" | "origin";
  }
  | { readonly type: "port"; readonly defaultPort: number }
  /** Repeatable flag, one value each; its variable is whitespace-separated. */
  | { readonly type: "repeatable" };

/** One option: flag, variable, kind, default and help. */
export interface OptionSpec {
  /** Flag without the leading dashes, e.g. `max-skills`. */
  readonly flag: string;
  /** Environment variable, e.g. `SKILLGATE_MAX_SKILLS`. */
  readonly env: string;
  /** Key in {@linkcode OptionValues}. */
  readonly key: keyof OptionValues;
  readonly kind: OptionKind;
  /** One line for `--help`. */
  readonly help: string;
  /** What `--help` shows after a string or list option's `=`, e.g. `DIR`. @default "VALUE" */
  readonly valueName?: string;
  /**
   * False for the options that choose the configuration file itself
   * (`--config`, `--no-config`): they cannot be set from inside it. Every
   * other option is settable in the file under {@linkcode fileKeyOf}.
   * @default true
   */
  readonly isFileKey?: false;
  /**
   * Which changes of the value narrow what skillgate serves, reads or runs
   * (a hosted configuration file and live edits may only narrow):
   * `lower` (a smaller number), `subset` (a list with fewer entries), or
   * `order` (values listed narrowest first; a value not listed is wider than
   * every listed one and incomparable with other unlisted ones). Absent:
   * every change widens, the safe default for an option added later.
   */
  readonly narrowing?: Narrowing;
}

/** See {@linkcode OptionSpec.narrowing}. */
export type Narrowing =
  | "lower"
  | "subset"
  | { readonly order: readonly (string | boolean | null)[] };

/**
 * The option's key in the configuration file: the flag in camelCase
 * (`http-token-file` -> `httpTokenFile`).
 *
 * @param option An entry of {@linkcode OPTIONS}.
 * @returns The key, e.g. `maxFileBytes` for `--max-file-bytes`.
 */
export function fileKeyOf(option: OptionSpec): string {
  return option.flag.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** Every option's value after parsing (defaults filled in); the caps are among them. */
export interface OptionValues extends Caps {
  /** Print JSON instead of a table (`list`, `permissions`). */
  json: boolean;
  /**
   * `validate`: every Agent Skills spec finding (`STRICT_REASONS` in
   * `src/cli/validate_command.ts`) counts as an error. @default false
   */
  strict: boolean;
  /** Where the model's catalog goes: `instructions` or `tool-description`. */
  catalog: string;
  /** `auto`, `always` or `never`: whether skill_load/skill_file are offered. */
  tools: string;
  /** Freeze the catalog at start-up and watch nothing. */
  static: boolean;
  /** Folder of the persistent index cache, or null for the default place. */
  indexCache: string | null;
  /** Use no index cache at all. */
  noIndexCache: boolean;
  /** HTTP port, or null for stdio. */
  http: number | null;
  /** HTTP listen address. */
  host: string;
  /** Stateless HTTP (no sessions), for load-balanced replicas. */
  stateless: boolean;
  /** Extra Host header values accepted on HTTP. */
  allowedHosts: string[];
  /** Extra Origin values accepted on HTTP. */
  allowedOrigins: string[];
  /** File holding the HTTP bearer token. */
  httpTokenFile: string | null;
  /** Script runs in parallel at most. */
  maxConcurrentRuns: number;
  /** Script runs waiting at most before a refusal. */
  maxQueuedRuns: number;
  /**
   * How scripts are contained: `auto` (a PID namespace where the kernel allows
   * one, else a process group) or `group` (a process group only, so the
   * worker's run permission names the interpreters themselves).
   */
  isolation: string;
  /** The configuration file named by `--config` / `SKILLGATE_CONFIG`, or null for the default. */
  config: string | null;
  /** Read no configuration file. */
  noConfig: boolean;
  /** Remote sources as written (`--source`, repeatable; `SKILLGATE_SOURCES`). */
  sources: string[];
  /** Owners whose GitHub repositories may be fetched (default none). */
  githubAllow: string[];
  /** Publisher origins (`https://host[:port]`) whose well-known skills may be fetched (default none). */
  wellKnownAllow: string[];
  /** GitHub REST API base URL. */
  githubApi: string;
  /** Host tarball redirects may lead to (`host[:port]`), or null to derive it. */
  githubDownloadHost: string | null;
  /** Lock file path, or null for `skillgate.lock` in the working directory. */
  lock: string | null;
  /** Serve only content matching the lock; `sync` refuses to change it. */
  frozen: boolean;
  /** Seconds between polls of remote sources; 0 off. */
  poll: number;
  /** `sync`: move pins forward. */
  update: boolean;
  /** `PREFIX=PATH` entries giving local roots a served-name prefix. */
  rootPrefix: string[];
  /** Remote fetch caps (`src/remote/remote_caps.ts`). */
  remoteMaxArchiveBytes: number;
  remoteMaxUnpackedBytes: number;
  remoteMaxMembers: number;
  remoteMaxMemberBytes: number;
  remoteTimeoutSeconds: number;
}

/** The defaults of {@linkcode OptionValues}: {@linkcode DEFAULT_CAPS} and the rest. */
export const DEFAULT_OPTION_VALUES: Readonly<OptionValues> = Object.freeze({
  ...DEFAULT_CAPS,
  json: false,
  strict: false,
  catalog: "instructions",
  tools: "auto",
  static: false,
  indexCache: null,
  noIndexCache: false,
  http: null,
  host: "127.0.0.1",
  stateless: false,
  allowedHosts: [],
  allowedOrigins: [],
  httpTokenFile: null,
  maxConcurrentRuns: 4,
  maxQueuedRuns: 64,
  isolation: "auto",
  config: null,
  noConfig: false,
  sources: [],
  githubAllow: [],
  wellKnownAllow: [],
  githubApi: "https://api.github.com",
  githubDownloadHost: null,
  lock: null,
  frozen: false,
  poll: 300,
  update: false,
  rootPrefix: [],
  remoteMaxArchiveBytes: 64 * 1024 * 1024,
  remoteMaxUnpackedBytes: 256 * 1024 * 1024,
  remoteMaxMembers: 20_000,
  remoteMaxMemberBytes: 16 * 1024 * 1024,
  remoteTimeoutSeconds: 120,
});

const integer = (min: number, max: number): OptionKind => ({ type: "integer", min, max });
const LOWER: Narrowing = "lower";

/** Every option, in `--help` order. */
export const OPTIONS: readonly OptionSpec[] = Object.freeze([
  {
    flag: "json",
    env: "SKILLGATE_JSON",
    key: "json",
    kind: { type: "boolean" },
    help: "list, permissions: print JSON instead of a table",
  },
  {
    flag: "strict",
    env: "SKILLGATE_STRICT",
    key: "strict",
    kind: { type: "boolean" },
    help: "validate: every Agent Skills spec finding (invalid-frontmatter, name-mismatch, " +
      "skill-md-case) and extension-excluded is an error (exit 1), not a warning",
  },
  {
    flag: "catalog",
    env: "SKILLGATE_CATALOG",
    key: "catalog",
    kind: { type: "enum", values: ["instructions", "tool-description"] },
    help: "where the model's skill catalog goes (default instructions)",
  },
  {
    flag: "tools",
    env: "SKILLGATE_TOOLS",
    key: "tools",
    kind: { type: "enum", values: ["auto", "always", "never"] },
    help:
      "offer skill_load/skill_file: auto drops them for skills-extension clients (default auto)",
    narrowing: { order: ["never", "auto", "always"] },
  },
  {
    flag: "static",
    env: "SKILLGATE_STATIC",
    key: "static",
    kind: { type: "boolean" },
    help: "freeze the catalog at start-up; watch nothing",
    narrowing: { order: [true, false] },
  },
  {
    flag: "index-cache",
    env: "SKILLGATE_INDEX_CACHE",
    key: "indexCache",
    kind: { type: "string" },
    valueName: "DIR",
    help: "folder of the index cache (default $XDG_CACHE_HOME/skillgate/index, or " +
      "$MCP_DATA_DIR/skillgate/index when hosted)",
  },
  {
    flag: "no-index-cache",
    env: "SKILLGATE_NO_INDEX_CACHE",
    key: "noIndexCache",
    kind: { type: "boolean" },
    help: "keep no index cache: every start parses every SKILL.md",
  },
  {
    flag: "http",
    env: "SKILLGATE_HTTP",
    key: "http",
    kind: { type: "port", defaultPort: 3000 },
    help: "serve Streamable HTTP at /mcp instead of stdio (--http, --http=PORT or --http PORT; " +
      "default 3000)",
    narrowing: { order: [null] },
  },
  {
    flag: "host",
    env: "SKILLGATE_HOST",
    key: "host",
    kind: { type: "string" },
    valueName: "ADDRESS",
    help: "HTTP listen address (default 127.0.0.1; beyond loopback a token is required)",
  },
  {
    flag: "stateless",
    env: "SKILLGATE_STATELESS",
    key: "stateless",
    kind: { type: "boolean" },
    help: "HTTP without sessions, for identical replicas behind a load balancer",
  },
  {
    flag: "allowed-hosts",
    env: "SKILLGATE_ALLOWED_HOSTS",
    key: "allowedHosts",
    kind: { type: "list", entries: "host" },
    valueName: "HOST[:PORT],...",
    help: "extra Host values accepted on HTTP loopback, as host[:port] (comma-separated)",
    narrowing: "subset",
  },
  {
    flag: "allowed-origins",
    env: "SKILLGATE_ALLOWED_ORIGINS",
    key: "allowedOrigins",
    kind: { type: "list", entries: "origin" },
    valueName: "ORIGIN,...",
    help: "extra Origin values accepted on HTTP, as http(s)://host[:port] (comma-separated)",
    narrowing: "subset",
  },
  {
    flag: "http-token-file",
    env: "SKILLGATE_HTTP_TOKEN_FILE",
    key: "httpTokenFile",
    kind: { type: "string" },
    valueName: "FILE",
    help: "file holding the HTTP bearer token (or set SKILLGATE_HTTP_TOKEN)",
  },
  {
    flag: "max-concurrent-runs",
    env: "SKILLGATE_MAX_CONCURRENT_RUNS",
    key: "maxConcurrentRuns",
    kind: integer(1, 64),
    help: "scripts running at once at most (default 4)",
    narrowing: LOWER,
  },
  {
    flag: "max-queued-runs",
    env: "SKILLGATE_MAX_QUEUED_RUNS",
    key: "maxQueuedRuns",
    kind: integer(64, 10_000),
    help: "script runs waiting at most; beyond, a clear refusal (default 64)",
    narrowing: LOWER,
  },
  {
    flag: "isolation",
    env: "SKILLGATE_ISOLATION",
    key: "isolation",
    kind: { type: "enum", values: ["auto", "sandbox", "pid-namespace", "group"] },
    help: "how scripts are contained: the strongest available (auto: bubblewrap sandbox, else " +
      "PID namespace, else process group), sandbox (refuse to start without bwrap), " +
      "pid-namespace, or group",
    narrowing: { order: ["sandbox", "auto", "pid-namespace", "group"] },
  },
  {
    flag: "max-skills",
    env: "SKILLGATE_MAX_SKILLS",
    key: "maxSkills",
    kind: integer(1, 1_000_000),
    help: "most skills served across all roots (default 10000)",
    narrowing: LOWER,
  },
  {
    flag: "max-files-per-skill",
    env: "SKILLGATE_MAX_FILES_PER_SKILL",
    key: "maxFilesPerSkill",
    kind: integer(1, 1_000_000),
    help: "most files listed per skill (default 2000)",
    narrowing: LOWER,
  },
  {
    flag: "max-folders-per-skill",
    env: "SKILLGATE_MAX_FOLDERS_PER_SKILL",
    key: "maxFoldersPerSkill",
    kind: integer(1, 1_000_000),
    help: "most folders walked per skill (default 2000)",
    narrowing: LOWER,
  },
  {
    flag: "max-skill-md-bytes",
    env: "SKILLGATE_MAX_SKILL_MD_BYTES",
    key: "maxSkillMdBytes",
    kind: integer(1024, 16 * 1024 * 1024),
    help: "bytes of SKILL.md read; the body is truncated beyond (default 262144)",
    narrowing: LOWER,
  },
  {
    flag: "max-file-bytes",
    env: "SKILLGATE_MAX_FILE_BYTES",
    key: "maxFileEntryBytes",
    kind: integer(1024, 16 * 1024 * 1024),
    help: "bytes one skill_file entry returns before it is truncated (default 1048576)",
    narrowing: LOWER,
  },
  {
    flag: "max-call-bytes",
    env: "SKILLGATE_MAX_CALL_BYTES",
    key: "maxCallBytes",
    kind: integer(1024, 64 * 1024 * 1024),
    help: "bytes one skill_file call returns in all, decided from stat (default 4194304)",
    narrowing: LOWER,
  },
  {
    flag: "config",
    env: "SKILLGATE_CONFIG",
    key: "config",
    kind: { type: "string" },
    valueName: "FILE",
    help: "the configuration file (default $XDG_CONFIG_HOME/skillgate/config.json)",
    isFileKey: false,
  },
  {
    flag: "no-config",
    env: "SKILLGATE_NO_CONFIG",
    key: "noConfig",
    kind: { type: "boolean" },
    help: "read no configuration file (nor overrides.json beside it)",
    isFileKey: false,
  },
  {
    flag: "root-prefix",
    env: "SKILLGATE_ROOT_PREFIX",
    key: "rootPrefix",
    kind: { type: "list" },
    valueName: "PREFIX=PATH,...",
    help: "serve a local root's skills as PREFIX__NAME: PREFIX=PATH (comma-separated)",
  },
  {
    flag: "source",
    env: "SKILLGATE_SOURCES",
    key: "sources",
    kind: { type: "repeatable" },
    help: "remote source github:OWNER/REPO[/PATH][@REF][,prefix=NAME] or " +
      "https://HOST[/BASE]/.well-known/agent-skills/[,prefix=NAME] (repeatable; the " +
      "variable is whitespace-separated)",
    narrowing: "subset",
  },
  {
    flag: "github-allow",
    env: "SKILLGATE_GITHUB_ALLOW",
    key: "githubAllow",
    kind: { type: "list" },
    valueName: "OWNER,...",
    help: "GitHub owners whose repositories may be fetched (comma-separated; default none)",
    narrowing: "subset",
  },
  {
    flag: "well-known-allow",
    env: "SKILLGATE_WELL_KNOWN_ALLOW",
    key: "wellKnownAllow",
    kind: { type: "list", entries: "origin" },
    valueName: "ORIGIN,...",
    help: "publisher origins https://HOST[:PORT] whose /.well-known/agent-skills/ may be " +
      "fetched (comma-separated, exact match; default none)",
    narrowing: "subset",
  },
  {
    flag: "github-api",
    env: "SKILLGATE_GITHUB_API",
    key: "githubApi",
    kind: { type: "string" },
    valueName: "URL",
    help: "GitHub REST API URL (default https://api.github.com; Enterprise: https://HOST/api/v3)",
  },
  {
    flag: "github-download-host",
    env: "SKILLGATE_GITHUB_DOWNLOAD_HOST",
    key: "githubDownloadHost",
    kind: { type: "string" },
    valueName: "HOST[:PORT]",
    help: "host[:port] tarballs are downloaded from (default codeload.github.com, or the " +
      "Enterprise host)",
  },
  {
    flag: "lock",
    env: "SKILLGATE_LOCK",
    key: "lock",
    kind: { type: "string" },
    valueName: "FILE",
    help: "lock file pinning remote sources (default ./skillgate.lock; sync creates it)",
  },
  {
    flag: "frozen",
    env: "SKILLGATE_FROZEN",
    key: "frozen",
    kind: { type: "boolean" },
    help: "serve a remote source only if it matches the lock; sync refuses to change the lock",
    narrowing: { order: [true, false] },
  },
  {
    flag: "poll",
    env: "SKILLGATE_POLL",
    key: "poll",
    kind: integer(0, 86_400),
    help: "seconds between checks of remote sources, conditional requests (default 300; 0 off)",
  },
  {
    flag: "update",
    env: "SKILLGATE_UPDATE",
    key: "update",
    kind: { type: "boolean" },
    help: "sync: move the lock's pins forward (sync --update [SPEC...]) and print what changed",
  },
  {
    flag: "remote-max-archive-bytes",
    env: "SKILLGATE_REMOTE_MAX_ARCHIVE_BYTES",
    key: "remoteMaxArchiveBytes",
    kind: integer(1024, 1024 * 1024 * 1024),
    help: "bytes of one source's tarball, or one publisher artifact, downloaded at most " +
      "(default 67108864)",
    narrowing: "lower",
  },
  {
    flag: "remote-max-unpacked-bytes",
    env: "SKILLGATE_REMOTE_MAX_UNPACKED_BYTES",
    key: "remoteMaxUnpackedBytes",
    kind: integer(1024, 4 * 1024 * 1024 * 1024),
    help: "bytes one tarball (or all of a publisher's skills) may unpack to, counted as it " +
      "inflates (default 268435456)",
    narrowing: "lower",
  },
  {
    flag: "remote-max-members",
    env: "SKILLGATE_REMOTE_MAX_MEMBERS",
    key: "remoteMaxMembers",
    kind: integer(1, 1_000_000),
    help: "members of one tarball (or files of one publisher) at most (default 20000)",
    narrowing: "lower",
  },
  {
    flag: "remote-max-member-bytes",
    env: "SKILLGATE_REMOTE_MAX_MEMBER_BYTES",
    key: "remoteMaxMemberBytes",
    kind: integer(1, 1024 * 1024 * 1024),
    help: "bytes of one extracted file at most (default 16777216)",
    narrowing: "lower",
  },
  {
    flag: "remote-timeout-seconds",
    env: "SKILLGATE_REMOTE_TIMEOUT_SECONDS",
    key: "remoteTimeoutSeconds",
    kind: integer(1, 3_600),
    help: "seconds one source's fetch may take in all (default 120)",
    narrowing: "lower",
  },
]);
