/**
 * Turns argv and the environment into a frozen {@linkcode Config}. Pure: the
 * caller passes in what it read from the world, so every rule is testable.
 *
 * @module
 */

import { dirname, isAbsolute, join, normalize, resolve } from "node:path";
import { type Caps, MIN_CONFIRM_SECRET_CHARS } from "../caps.ts";
import type { Root, RootOrigin } from "../skills/skill.ts";
import { normaliseOrigin, parseHostPort } from "../transports/http/host_policy.ts";
import type { Command, Config, OptionSource, ScriptSettings } from "./config.ts";
import type { ConfigFile } from "./file/config_file.ts";
import { narrows } from "./file/narrowing.ts";
import { hasPlaceholder, isSetAtAll, isUnsetValue, splitRootList } from "./env_value.ts";
import {
  DEFAULT_OPTION_VALUES,
  fileKeyOf,
  OPTIONS,
  type OptionSpec,
  type OptionValues,
} from "./options.ts";
import { decideEndpoints, EndpointError } from "../remote/github_hosts.ts";
import { isOwnerAllowed, SourceSpecError, splitSourceList } from "../remote/source_spec.ts";
import { isOriginAllowed, OriginListError, parseOriginList } from "../remote/publisher_spec.ts";
import { parseRemoteSpec, type RemoteSource } from "../remote/remote_source.ts";
import { PREFIX_SEPARATOR } from "../skills/prefix_separator.ts";

/** A command line or environment value that cannot be used. Exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What the command line parser reads from the world. */
export interface CommandLineInput {
  /** Arguments after the program name. */
  readonly args: readonly string[];
  /** Looks up one environment variable; undefined when missing. */
  readonly getEnv: (name: string) => string | undefined;
  /** Absolute working directory, for relative roots. */
  readonly cwd: string;
  /**
   * The configuration file, read and checked by the trusted part (see
   * `src/config/file/load_config.ts`), or null/absent when there is none.
   */
  readonly file?: ConfigFile | null;
  /**
   * True for the first pass that only finds out where the configuration
   * file is (`--config`, `--no-config`): missing roots are not an error yet.
   */
  readonly isLocatingFile?: boolean;
}

/** Variables a host runner injects; any of them marks the server hosted. */
export const HOSTED_MARKERS: readonly string[] = Object.freeze([
  "MCP_SKILLS_PATH",
  "MCP_HOST_METER_FILE",
  "MCP_DATA_DIR",
  "MCP_BLOB_BASE_URL",
]);

const COMMANDS: readonly Command[] = ["serve", "list", "validate", "permissions", "sync", "config"];

/**
 * Parses `skillgate [serve|list|validate|permissions|config] [PATH...] [options]`.
 *
 * Roots: `MCP_SKILLS_PATH` wins (and marks the server hosted), then PATH
 * arguments, then `SKILLS_DIR`, then the configuration file's `roots` (not
 * when hosted; relative to the file's folder); list values split on `:` and
 * `,`; a blank value or a literal `${VAR}` counts as unset; `~/` expands to
 * `HOME`; relative paths resolve against `cwd`; duplicates are dropped.
 * Options, per option: the flag, else its `SKILLGATE_*` variable, else the
 * configuration file (`input.file`; when hosted only a value that narrows
 * the default, see `narrows()`), else the default; `sources` says which.
 *
 * `--http` takes its port inline (`--http=8080`) or as the next argument when
 * that is all digits (`--http 8080`); the flag refuses port 0 (the variable's
 * `0`, `false` or `off` still means stdio). `--allowed-hosts` entries must be
 * `host[:port]`, `--allowed-origins` entries `http(s)://host[:port]`.
 *
 * @param input argv, an environment lookup and the working directory.
 * @returns The frozen configuration; `notices` says when `MCP_SKILLS_PATH`
 *   replaced ROOT arguments, or when a hosted configuration file's value or
 *   roots were not applied.
 * @throws {UsageError} On an unknown flag, a bad option value (a port out of
 *   range, a malformed allowed host or origin), a bad `MCP_CONFIRM_*` value
 *   (a `MCP_CONFIRM_SECRET` shorter than 16 characters),
 *   `serve`/`list`/`permissions` without any root (unless
 *   `isLocatingFile`), or `validate` without a path.
 */
export function parseCommandLine(input: CommandLineInput): Config {
  const values: OptionValues = structuredClone(DEFAULT_OPTION_VALUES) as OptionValues;
  const notices: string[] = [];
  const sources: Record<string, OptionSource> = {};
  for (const option of OPTIONS) sources[option.key] = "default";
  // A marker left as a placeholder, or blank, still says a host started us: hosted moves
  // defaults closed.
  const hostedBy = HOSTED_MARKERS.find((name) => isSetAtAll(input.getEnv(name))) ?? null;
  const file = input.file ?? null;
  if (file !== null) applyFile(values, sources, file, { isHosted: hostedBy !== null, notices });
  for (const option of OPTIONS) {
    const fromEnv = input.getEnv(option.env);
    if (hasPlaceholder(fromEnv)) {
      notices.push(
        `${option.env} holds the unsubstituted placeholder "${
          (fromEnv ?? "").trim().slice(0, 80)
        }", ` +
          "so its default applies; set it to a value or remove it",
      );
    }
    if (!isUnsetValue(fromEnv)) {
      applyOption(values, option, fromEnv, option.env);
      sources[option.key] = "variable";
    }
  }
  let command: Command = "serve";
  const positional: string[] = [];
  let sawCommand = false;
  let sourcesFromFlags = false;
  // The options as typed, each one word (`--flag` or `--flag=value`), for the banner.
  const optionWords: { flag: string; value: string | undefined }[] = [];
  for (let index = 0; index < input.args.length; index++) {
    const arg = input.args[index] ?? "";
    if (arg === "--help" || arg === "-h" || arg === "help") return simpleConfig("help", values);
    if (arg === "--version" || arg === "-V") return simpleConfig("version", values);
    if (arg === "--") {
      positional.push(...input.args.slice(index + 1));
      break;
    }
    if (arg.startsWith("-")) {
      const [flag, inlineValue] = splitFlag(arg);
      const option = OPTIONS.find((candidate) => candidate.flag === flag);
      if (option === undefined) {
        if (TOKEN_FLAG.test(flag)) {
          // The value is a secret: never echoed (newcomer n9, F6).
          throw new UsageError(
            `Unknown option "--${flag}": a bearer token is never a flag (any user sees a ` +
              "process's arguments); set SKILLGATE_HTTP_TOKEN, or put the token in a file and " +
              "pass --http-token-file=PATH",
          );
        }
        throw new UsageError(`Unknown option "${arg}"; run "skillgate --help" for the list`);
      }
      let value = inlineValue;
      if (option.kind.type === "repeatable") {
        // A flag wins over the variable and the file: the first --source drops theirs.
        if (!sourcesFromFlags) values.sources = [];
        sourcesFromFlags = true;
        if (value === undefined) value = input.args[++index];
        if (value === undefined || value.trim() === "") {
          throw new UsageError(`Option "--${flag}" needs a value`);
        }
        values.sources.push(value.trim());
        sources[option.key] = "flag";
        optionWords.push({ flag, value: value.trim() });
        continue;
      }
      if (value === undefined && option.kind.type === "port") {
        // `--http 8080`: a following all-digit argument is the port, not a root.
        const next = input.args[index + 1];
        if (next !== undefined && /^\d+$/.test(next)) value = input.args[++index];
      } else if (value === undefined && option.kind.type !== "boolean") {
        value = input.args[++index];
        if (value === undefined) throw new UsageError(`Option "--${flag}" needs a value`);
      }
      applyOption(values, option, value, `--${flag}`);
      sources[option.key] = "flag";
      optionWords.push({ flag, value });
      continue;
    }
    if (!sawCommand && positional.length === 0 && (COMMANDS as string[]).includes(arg)) {
      sawCommand = true;
      command = arg as Command;
      continue;
    }
    positional.push(arg);
  }
  const home = input.getEnv("HOME");
  const resolvePath = (value: string) => resolveUserPath(value, input.cwd, home);
  const fileDir = file === null ? input.cwd : dirname(resolvePath(file.path));
  const resolveFilePath = (value: string) => resolveUserPath(value, fileDir, home);
  const roots: Root[] = [];
  const addRoots = (entries: readonly string[], from: RootOrigin) => {
    for (const entry of entries) {
      const path = resolvePath(entry);
      if (!roots.some((root) => root.path === path)) roots.push({ path, from });
    }
  };
  const targets = command === "validate" ? positional.map(resolvePath) : [];
  const remoteSources = parseSources(values, { hostedBy, sourcesFromFlags });
  // sync's arguments are the sources to --update, not roots.
  const updateSpecs = command === "sync"
    ? positional.map((spec) => sourceArgument(spec, remoteSources))
    : [];
  const hostedPath = input.getEnv("MCP_SKILLS_PATH");
  const skillsDir = input.getEnv("SKILLS_DIR");
  if (command === "sync") {
    if (remoteSources.length === 0) {
      throw new UsageError(
        "Nothing to sync; name remote sources with --source=github:OWNER/REPO or " +
          "--source=https://HOST/.well-known/agent-skills/ (repeatable) or SKILLGATE_SOURCES, " +
          "and allow them with --github-allow (owners) or --well-known-allow (origins)",
      );
    }
  } else if (command !== "validate") {
    if (!isUnsetValue(hostedPath)) {
      addRoots(splitRootList(hostedPath), "MCP_SKILLS_PATH");
      if (positional.length > 0) {
        notices.push(
          `MCP_SKILLS_PATH is set, so it replaces the ROOT arguments (${
            positional.map((arg) => `"${arg}"`).join(", ")
          }); unset MCP_SKILLS_PATH to serve them`,
        );
      }
      if (file?.roots != null && file.roots.length > 0) {
        // A hosted server's roots are the host's: said, as every other key the file may not set.
        notices.push(
          `the configuration file's "roots" are not used: MCP_SKILLS_PATH (set by the host) ` +
            "names the roots",
        );
      }
    } else if (positional.length > 0) addRoots(positional, "argument");
    else if (!isUnsetValue(skillsDir)) addRoots(splitRootList(skillsDir), "SKILLS_DIR");
    else if (file?.roots != null && file.roots.length > 0) {
      if (hostedBy !== null) {
        notices.push(
          `the configuration file's "roots" are not used: a host started skillgate ` +
            `(${hostedBy} is set), and the file may only narrow what the host set`,
        );
      } else {
        for (const entry of file.roots) {
          const path = resolveFilePath(entry);
          if (!roots.some((root) => root.path === path)) roots.push({ path, from: "config" });
        }
      }
    }
    if (roots.length === 0 && (input.isLocatingFile === true || command === "config")) {
      // `config` shows the configuration even without roots; the first pass only locates the file.
    } else if (roots.length === 0 && remoteSources.length === 0) {
      throw new UsageError(
        `No skill root given; pass a folder (skillgate ${command} ~/skills) or set SKILLS_DIR`,
      );
    }
  } else if (targets.length === 0) {
    throw new UsageError("Nothing to validate; pass skill folders (skillgate validate ./my-skill)");
  }
  if (values.httpTokenFile !== null) {
    values.httpTokenFile = sources.httpTokenFile === "file"
      ? resolveFilePath(values.httpTokenFile)
      : resolvePath(values.httpTokenFile);
  }
  if (values.config !== null) values.config = resolvePath(values.config);
  const prefixedRoots = applyRootPrefixes(roots, values.rootPrefix, resolvePath, remoteSources);
  const httpToken = input.getEnv("SKILLGATE_HTTP_TOKEN");
  refuseTokenPlaceholders(values, input.getEnv);
  const scripts = scriptSettings(input.getEnv, resolvePath);
  const lockPath = values.lock === null
    ? resolvePath("skillgate.lock")
    : sources.lock === "file"
    ? resolveFilePath(values.lock)
    : resolvePath(values.lock);
  // A file option's value made absolute, so the words work from a client's working directory.
  const absolute: Record<string, string | null> = {
    "http-token-file": values.httpTokenFile,
    config: values.config,
    lock: lockPath,
    "index-cache": typeof values.indexCache === "string" ? resolvePath(values.indexCache) : null,
  };
  // --root-prefix PREFIX=PATH: the path made absolute as the roots are.
  const absolutePrefixes = (value: string) =>
    value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
      const equals = entry.indexOf("=");
      return `${entry.slice(0, equals)}=${resolvePath(entry.slice(equals + 1))}`;
    }).join(",");
  const commandLineOptions = optionWords.map(({ flag, value }) => {
    const shown = flag === "root-prefix" && value !== undefined
      ? absolutePrefixes(value)
      : absolute[flag] ?? value;
    return shown === undefined ? `--${flag}` : `--${flag}=${shown}`;
  });
  return deepFreeze({
    command,
    roots: prefixedRoots,
    targets,
    hosted: hostedBy !== null,
    hostedBy,
    caps: capsOf(values),
    options: values,
    scripts,
    httpToken: isUnsetValue(httpToken) ? null : httpToken.trim(),
    notices,
    ...indexCacheDirOf(values, {
      hosted: hostedBy !== null,
      dataDir: scripts.dataDir,
      getEnv: input.getEnv,
      resolvePath: sources.indexCache === "file" ? resolveFilePath : resolvePath,
    }),
    sources,
    configFile: file === null ? null : file.path,
    remoteSources,
    lockPath,
    updateSpecs,
    commandLineOptions,
  });
}

/**
 * Parses the remote sources and applies the start-up refusals: a spec that
 * does not parse, an owner off `--github-allow`, a publisher origin off
 * `--well-known-allow` (or an entry there that is not an origin), `--source` flags when
 * hosted (there only the host's `SKILLGATE_SOURCES` counts), two sources with
 * one prefix, an unusable `--github-api`.
 */
function parseSources(
  values: OptionValues,
  context: { hostedBy: string | null; sourcesFromFlags: boolean },
): RemoteSource[] {
  let origins: string[];
  try {
    origins = parseOriginList(values.wellKnownAllow);
  } catch (error) {
    if (error instanceof OriginListError) throw new UsageError(error.message);
    throw error;
  }
  if (values.sources.length === 0) return [];
  if (context.hostedBy !== null && context.sourcesFromFlags) {
    throw new UsageError(
      `Hosted (${context.hostedBy}): remote sources come only from the host's ` +
        "SKILLGATE_SOURCES, not from --source; ask the host to set them",
    );
  }
  try {
    decideEndpoints(values.githubApi, values.githubDownloadHost);
  } catch (error) {
    if (error instanceof EndpointError) throw new UsageError(error.message);
    throw error;
  }
  const sources: RemoteSource[] = [];
  for (const text of values.sources) {
    let source: RemoteSource;
    try {
      source = parseRemoteSpec(text);
    } catch (error) {
      if (error instanceof SourceSpecError) throw new UsageError(error.message);
      throw error;
    }
    if (source.kind === "well-known") {
      if (!isOriginAllowed(source, origins)) {
        throw new UsageError(
          `Source "${source.given}" is refused: its origin ${source.origin} is not allowed. ` +
            "Publishers are denied by default; add the exact origin with --well-known-allow or " +
            "SKILLGATE_WELL_KNOWN_ALLOW to fetch it",
        );
      }
    } else if (!isOwnerAllowed(source.owner, values.githubAllow)) {
      throw new UsageError(
        `Source "${source.given}" is refused: its owner "${source.owner}" is not allowed. ` +
          "Remote sources are denied by default; add the owner with --github-allow or " +
          "SKILLGATE_GITHUB_ALLOW to fetch it",
      );
    }
    const same = sources.find((other) => other.spec === source.spec);
    if (same !== undefined) continue;
    const clash = sources.find((other) => other.prefix === source.prefix);
    if (clash !== undefined) {
      throw new UsageError(
        `Sources "${clash.given}" and "${source.given}" share the prefix "${source.prefix}"; ` +
          "give one another with ,prefix=NAME",
      );
    }
    sources.push(source);
  }
  return sources;
}

/** `sync --update SPEC`: the configured source SPEC names, as its canonical spec. */
function sourceArgument(text: string, sources: readonly RemoteSource[]): string {
  let spec: string;
  try {
    spec = parseRemoteSpec(text).spec;
  } catch (error) {
    if (error instanceof SourceSpecError) throw new UsageError(error.message);
    throw error;
  }
  if (!sources.some((source) => source.spec === spec)) {
    throw new UsageError(
      `"${text}" is not one of the configured sources; sync --update takes a --source spec`,
    );
  }
  return spec;
}

/** `--root-prefix PREFIX=PATH,...`: gives the named roots a prefix. */
function applyRootPrefixes(
  roots: readonly Root[],
  entries: readonly string[],
  resolvePath: (path: string) => string,
  sources: readonly RemoteSource[],
): Root[] {
  const prefixes = new Map<string, string>();
  for (const entry of entries) {
    const equals = entry.indexOf("=");
    const prefix = entry.slice(0, equals);
    if (equals < 1 || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(prefix) || prefix.length > 64) {
      throw new UsageError(
        `--root-prefix takes PREFIX=PATH (PREFIX: lowercase a-z, digits, single '-'), got ` +
          `"${entry}"`,
      );
    }
    const path = resolvePath(entry.slice(equals + 1));
    if (!roots.some((root) => root.path === path)) {
      throw new UsageError(`--root-prefix names "${path}", which is not a configured root`);
    }
    const taken = [...prefixes.values(), ...sources.map((source) => source.prefix)];
    if (taken.includes(prefix) || prefix.includes(PREFIX_SEPARATOR)) {
      throw new UsageError(`--root-prefix "${prefix}" is already used by another root or source`);
    }
    prefixes.set(path, prefix);
  }
  return roots.map((root) => {
    const prefix = prefixes.get(root.path);
    return prefix === undefined ? root : { ...root, prefix };
  });
}

/**
 * Where the index cache lives: none with `--no-index-cache`; the folder
 * given by `--index-cache`; hosted, `$MCP_DATA_DIR/skillgate/index`;
 * else `$XDG_CACHE_HOME/skillgate/index` (an absolute value only, per the
 * XDG base directory rules), else `$HOME/.cache/skillgate/index`; null when
 * no home is known. Other caches live beside `index/`, never inside it.
 * `indexCacheWhy` says which rule chose it, or why there is none.
 */
function indexCacheDirOf(
  values: OptionValues,
  options: {
    hosted: boolean;
    dataDir: string | null;
    getEnv: (name: string) => string | undefined;
    resolvePath: (path: string) => string;
  },
): { indexCacheDir: string | null; indexCacheWhy: string } {
  const chosen = (dir: string | null, why: string) => ({ indexCacheDir: dir, indexCacheWhy: why });
  if (values.noIndexCache) return chosen(null, "off: --no-index-cache is set");
  if (values.indexCache !== null) {
    return chosen(options.resolvePath(values.indexCache), "--index-cache");
  }
  if (options.hosted) {
    return options.dataDir === null
      ? chosen(null, "off: hosted, and MCP_DATA_DIR is not set (set it, or --index-cache)")
      : chosen(`${options.dataDir.replace(/\/+$/, "")}/skillgate/index`, "$MCP_DATA_DIR");
  }
  const xdg = options.getEnv("XDG_CACHE_HOME")?.trim();
  if (xdg !== undefined && xdg.startsWith("/") && !hasPlaceholder(xdg)) {
    return chosen(`${xdg.replace(/\/+$/, "")}/skillgate/index`, "$XDG_CACHE_HOME");
  }
  const home = options.getEnv("HOME")?.trim();
  if (home !== undefined && home.startsWith("/") && !hasPlaceholder(home)) {
    return chosen(`${home.replace(/\/+$/, "")}/.cache/skillgate/index`, "$HOME/.cache");
  }
  return chosen(
    null,
    "off: neither XDG_CACHE_HOME nor HOME is an absolute path (set one, or --index-cache)",
  );
}

/**
 * Applies the configuration file's values over the defaults (variables and
 * flags are applied after, so they win). When hosted, a value that would
 * widen what the host set (the default, since a host sets through variables,
 * applied later) is left out with a notice: the file may only narrow.
 */
function applyFile(
  values: OptionValues,
  sources: Record<string, OptionSource>,
  file: ConfigFile,
  context: { isHosted: boolean; notices: string[] },
): void {
  const target = values as unknown as Record<string, unknown>;
  for (const option of OPTIONS) {
    if (!file.values.has(option.key)) continue;
    const value = file.values.get(option.key);
    if (context.isHosted && !narrows(option, value, target[option.key])) {
      context.notices.push(
        `the configuration file's "${fileKeyOf(option)}" is not applied: a host started ` +
          "skillgate, and the file may only narrow what the host set",
      );
      continue;
    }
    target[option.key] = structuredClone(value);
    sources[option.key] = "file";
  }
}

/** Flags a user may try for a bearer token, which skillgate takes only from a variable or file. */
const TOKEN_FLAG = /^(http-|bearer-|auth-)?token$/;

/** The variables that authenticate HTTP clients: a placeholder there must not mean "no token". */
const HTTP_TOKEN_VARIABLES = ["SKILLGATE_HTTP_TOKEN", "SKILLGATE_HTTP_TOKEN_FILE"] as const;

/**
 * Over HTTP, a token variable holding an unsubstituted placeholder, or set
 * but blank, stops start-up: read as unset it would serve without a token
 * (or with the placeholder text as a guessable token). A blank value is what
 * a host writes when it substitutes an unset variable (`-e
 * SKILLGATE_HTTP_TOKEN=$TOKEN`), so the owner meant a token (review r12, F4;
 * as a blank `MCP_SKILL_RUN` grants nothing). On stdio no token is used.
 *
 * @throws {UsageError} Naming the variable and what to do.
 */
function refuseTokenPlaceholders(
  values: OptionValues,
  getEnv: (name: string) => string | undefined,
): void {
  if (values.http === null) return;
  for (const name of HTTP_TOKEN_VARIABLES) {
    const value = getEnv(name);
    if (hasPlaceholder(value)) {
      throw new UsageError(
        `${name} holds an unsubstituted placeholder (\${...}, {{...}} or a bare $NAME), ` +
          "so no bearer token is in force; " +
          "the host meant to set it: substitute the value (or remove the variable) and restart",
      );
    }
    if (value !== undefined && value.trim() === "") {
      throw new UsageError(
        `${name} is set but empty (what a host writes when the variable it substitutes is ` +
          "unset), so no bearer token is in force; set the token (or remove the variable to " +
          "serve without one) and restart",
      );
    }
  }
}

function simpleConfig(command: Command, values: OptionValues): Config {
  return deepFreeze({
    command,
    roots: [],
    targets: [],
    hosted: false,
    hostedBy: null,
    caps: capsOf(values),
    options: values,
    scripts: scriptSettings(() => undefined, (path) => path),
    httpToken: null,
    notices: [],
    indexCacheDir: null,
    sources: Object.fromEntries(OPTIONS.map((option) => [option.key, "default"])),
    configFile: null,
    remoteSources: [],
    lockPath: "skillgate.lock",
    updateSpecs: [],
  });
}

function capsOf(values: OptionValues): Caps {
  return {
    maxSkills: values.maxSkills,
    maxFilesPerSkill: values.maxFilesPerSkill,
    maxFoldersPerSkill: values.maxFoldersPerSkill,
    maxSkillMdBytes: values.maxSkillMdBytes,
    maxFileEntryBytes: values.maxFileEntryBytes,
    maxCallBytes: values.maxCallBytes,
  };
}

/** The variables that decide what scripts may run and how runs are confirmed. */
export const SCRIPT_VARIABLES: readonly string[] = Object.freeze([
  "MCP_SKILL_RUN",
  "MCP_CONFIRM_MODE",
  "MCP_CONFIRM_SECRET",
  "MCP_CONFIRM_TTL_SECONDS",
  "MCP_SKILL_ALLOW_UNSCRUBBED",
]);

/** Script variables whose blank value refuses every script, as a placeholder does. */
const BLANK_REFUSES: readonly string[] = ["MCP_CONFIRM_MODE", "MCP_CONFIRM_TTL_SECONDS"];

function scriptSettings(
  getEnv: (name: string) => string | undefined,
  resolvePath: (path: string) => string,
): ScriptSettings {
  // A placeholder in a script variable refuses every script (see `unsubstituted`); the
  // variable itself then reads as unset, so a placeholder never fails parsing either. A
  // confirmation variable set but blank (a host substituting an unset variable) refuses every
  // script too: read as unset it would mean ask-user and 600 s where the owner may have meant
  // refuse or less (review r13, G4). A blank MCP_SKILL_RUN is its own case (`from: "blank"`); a
  // blank secret or unscrubbed switch only narrows (a per-process key; off).
  const unsubstituted = SCRIPT_VARIABLES.filter((name) => {
    const value = getEnv(name);
    return hasPlaceholder(value) ||
      (BLANK_REFUSES.includes(name) && value !== undefined && value.trim() === "");
  });
  const read = (name: string) => unsubstituted.includes(name) ? undefined : getEnv(name);
  const grant = read("MCP_SKILL_RUN");
  const mode = read("MCP_CONFIRM_MODE");
  const secret = read("MCP_CONFIRM_SECRET");
  const ttl = read("MCP_CONFIRM_TTL_SECONDS");
  const dataDir = getEnv("MCP_DATA_DIR");
  let confirmMode: ScriptSettings["confirmMode"] = "ask-user";
  if (!isUnsetValue(mode)) {
    const trimmed = mode.trim();
    if (trimmed !== "ask-user" && trimmed !== "auto" && trimmed !== "refuse") {
      throw new UsageError(
        `MCP_CONFIRM_MODE must be ask-user, auto or refuse, got "${mode}"`,
      );
    }
    confirmMode = trimmed;
  }
  if (!isUnsetValue(secret) && secret.trim().length < MIN_CONFIRM_SECRET_CHARS) {
    // The value is a secret: say how long it must be, never what it is.
    throw new UsageError(
      `MCP_CONFIRM_SECRET is too short; use at least ${MIN_CONFIRM_SECRET_CHARS} characters ` +
        "(for example: openssl rand -hex 32)",
    );
  }
  return {
    // Present but blank is kept (not read as unset): `parseGrant` refuses every script for it,
    // as for a placeholder. A host substituting an unset variable produces exactly "".
    grantJson: grant === undefined ? null : grant,
    confirmMode,
    confirmSecret: isUnsetValue(secret) ? null : secret,
    confirmTtlSeconds: isUnsetValue(ttl)
      ? 600
      : parseInteger(ttl, "MCP_CONFIRM_TTL_SECONDS", 1, 86_400),
    allowUnscrubbed: read("MCP_SKILL_ALLOW_UNSCRUBBED")?.trim() === "1",
    dataDir: isUnsetValue(dataDir) ? null : resolvePath(dataDir.trim()),
    unsubstituted,
  };
}

function applyOption(
  values: OptionValues,
  option: OptionSpec,
  raw: string | undefined,
  source: string,
): void {
  const target = values as unknown as Record<string, unknown>;
  const kind = option.kind;
  switch (kind.type) {
    case "integer":
      target[option.key] = parseInteger(raw ?? "", source, kind.min, kind.max);
      return;
    case "boolean":
      target[option.key] = parseBoolean(raw, source);
      return;
    case "enum": {
      const value = (raw ?? "").trim();
      if (!kind.values.includes(value)) {
        throw new UsageError(`${source} must be one of ${kind.values.join(", ")}, got "${raw}"`);
      }
      target[option.key] = value;
      return;
    }
    case "string": {
      const value = (raw ?? "").trim();
      if (value === "") throw new UsageError(`${source} needs a non-empty value`);
      target[option.key] = value;
      return;
    }
    case "repeatable":
      target[option.key] = splitSourceList(raw ?? "");
      return;
    case "list": {
      const entries = (raw ?? "").split(",").map((entry) => entry.trim()).filter((entry) =>
        entry !== ""
      );
      for (const entry of entries) checkListEntry(entry, kind.entries, source);
      target[option.key] = entries;
      return;
    }
    case "port": {
      const value = (raw ?? "true").trim().toLowerCase();
      const isFlag = source.startsWith("--");
      if (isFlag && /^0+$/.test(value)) {
        throw new UsageError(
          `${source} must be between 1 and 65535, got "${raw}"; leave ${source} out for stdio`,
        );
      }
      if (["", "1", "true", "yes", "on"].includes(value)) target[option.key] = kind.defaultPort;
      else if (["0", "false", "no", "off"].includes(value)) target[option.key] = null;
      else target[option.key] = parseInteger(value, source, 1, 65_535);
      return;
    }
  }
}

/**
 * Refuses an allowed-hosts entry that is not `host[:port]`, an allowed-origins one not an origin.
 *
 * @param entry One list entry, trimmed.
 * @param form What the entries must be (`host`, `origin`), or undefined for anything.
 * @param source The flag, variable or file key, for the message.
 * @throws {UsageError} When the entry is not of that form.
 */
export function checkListEntry(
  entry: string,
  form: "host" | "origin" | undefined,
  source: string,
): void {
  if (form === "host" && parseHostPort(entry.toLowerCase()) === null) {
    throw new UsageError(
      `${source} takes host[:port] values (no scheme, no path, port 1-65535), got "${entry}"`,
    );
  }
  if (form === "origin" && entry === "*") {
    throw new UsageError(
      `${source} does not take "*"; list each origin as http(s)://host[:port]`,
    );
  }
  if (form === "origin" && normaliseOrigin(entry) === null) {
    throw new UsageError(
      `${source} takes origins as http(s)://host[:port] (no path), got "${entry}"`,
    );
  }
}

function parseBoolean(raw: string | undefined, source: string): boolean {
  if (raw === undefined) return true;
  const value = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new UsageError(`${source} must be true or false, got "${raw}"`);
}

function splitFlag(arg: string): [string, string | undefined] {
  const body = arg.replace(/^--?/, "");
  const equals = body.indexOf("=");
  return equals < 0 ? [body, undefined] : [body.slice(0, equals), body.slice(equals + 1)];
}

function parseInteger(value: string, source: string, min: number, max: number): number {
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed)) {
    throw new UsageError(`${source} must be a whole number, got "${value}"`);
  }
  const parsed = Number(trimmed);
  if (parsed < min || parsed > max) {
    throw new UsageError(`${source} must be between ${min} and ${max}, got "${value}"`);
  }
  return parsed;
}

/**
 * Resolves a path exactly as given: never trimmed (a folder name may end in a
 * space). Only variable lists trim their entries, in `splitRootList`.
 */
function resolveUserPath(value: string, cwd: string, home: string | undefined): string {
  let path = value;
  if ((path === "~" || path.startsWith("~/")) && home !== undefined && home !== "") {
    path = join(home, path.slice(1));
  }
  path = isAbsolute(path) ? normalize(path) : resolve(cwd, path);
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
