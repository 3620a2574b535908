/**
 * Where the configuration file is and reading it: the trusted part's side.
 * `--no-config` (or `SKILLGATE_NO_CONFIG`) reads nothing; `--config=PATH`
 * (or `SKILLGATE_CONFIG`) names the file, which must then exist; otherwise
 * `$XDG_CONFIG_HOME/skillgate/config.json` (default
 * `~/.config/skillgate/config.json`) is read when it exists.
 * `overrides.json` lives beside it.
 *
 * @module
 */

import type { Stats } from "node:fs";
import { dirname, join } from "node:path";
import { type CommandLineInput, parseCommandLine, UsageError } from "../cli.ts";
import type { Config } from "../config.ts";
import { isUnsetValue } from "../env_value.ts";
import { groupHoldsOthers } from "../group_members.ts";
import { swappableAncestor } from "../index_cache_dir.ts";
import { type ConfigFile, parseConfigFile } from "./config_file.ts";
import { ConfigFileError } from "./json_document.ts";
import { parseOverridesFile, parseSetByView, type SetByView } from "./overrides_file.ts";
import type { SkillOverrides } from "../../skills/overrides.ts";

/** Bytes of a configuration or overrides file read at most. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** Where the configuration lives, as decided from the command line and environment. */
export interface ConfigLocation {
  /** The configuration file's absolute path. */
  readonly path: string;
  /** `overrides.json` beside it. */
  readonly overridesPath: string;
  /** Whether `--config` / `SKILLGATE_CONFIG` named it (then it must exist). */
  readonly isExplicit: boolean;
}

/**
 * Where the configuration file is, or null under `--no-config`.
 *
 * @param located A configuration parsed without the file (only `config`
 *   and `noConfig` are used; `config` is already absolute).
 * @param getEnv Environment lookup (`XDG_CONFIG_HOME`, `HOME`).
 * @returns The location, or null when no file is to be read (also when
 *   neither `XDG_CONFIG_HOME` nor `HOME` is set).
 */
export function locateConfig(
  located: Pick<Config, "options">,
  getEnv: (name: string) => string | undefined,
): ConfigLocation | null {
  if (located.options.noConfig) return null;
  let path: string | null = located.options.config;
  const isExplicit = path !== null;
  if (path === null) {
    const xdg = getEnv("XDG_CONFIG_HOME");
    const home = getEnv("HOME");
    if (!isUnsetValue(xdg) && xdg.trim().startsWith("/")) {
      path = join(xdg.trim(), "skillgate", "config.json");
    } else if (!isUnsetValue(home)) path = join(home.trim(), ".config", "skillgate", "config.json");
  }
  if (path === null) return null;
  return { path, overridesPath: join(dirname(path), "overrides.json"), isExplicit };
}

/**
 * Reads a file of the owner's configuration, bounded: one open that cannot
 * block (`O_NONBLOCK`, through `node:fs`: `Deno.open` takes no such flag, and
 * opening a FIFO with no writer would otherwise wait forever), a check on the
 * open handle that it is a regular file, and at most
 * {@linkcode MAX_CONFIG_FILE_BYTES} + 1 bytes read. A symlink is followed (an
 * owner may link their configuration from elsewhere); what it ends at must be
 * a regular file. `node:fs` is loaded only once a file is there to read (issue
 * 13: loading it costs start-up time, and most starts have no configuration
 * file); a file that appears between that look and the open is read the
 * same way.
 *
 * @param path Absolute path.
 * @returns Its text, or null when it does not exist.
 * @throws {ConfigFileError} When it is not a regular file (a FIFO, socket,
 *   device or folder), is larger than {@linkcode MAX_CONFIG_FILE_BYTES}, is
 *   not UTF-8, or cannot be read.
 *
 * Requires `--allow-read` on `path` (the trusted part holds it).
 */
export async function readOwnerFile(path: string): Promise<string | null> {
  try {
    Deno.statSync(path); // never blocks, even on a FIFO
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    // Anything else (a permission, a loop): the open below reports it.
  }
  return readOwnerFileSync(await import("node:fs"), path);
}

function readOwnerFileSync(fs: typeof import("node:fs"), path: string): string | null {
  const { closeSync, constants, fstatSync, openSync, readSync } = fs;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof Deno.errors.NotFound || code === "ENOENT") return null;
    throw new ConfigFileError(path, 1, 1, `cannot be read (${errorName(error)})`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      throw new ConfigFileError(
        path,
        1,
        1,
        `is not a regular file (it is ${kindOf(info)}); replace it with a regular JSON file`,
      );
    }
    const buffer = new Uint8Array(MAX_CONFIG_FILE_BYTES + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    if (filled > MAX_CONFIG_FILE_BYTES) {
      throw new ConfigFileError(path, 1, 1, `is larger than ${MAX_CONFIG_FILE_BYTES} bytes`);
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, filled));
    } catch {
      throw new ConfigFileError(path, 1, 1, "is not UTF-8 text");
    }
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    throw new ConfigFileError(path, 1, 1, `cannot be read (${errorName(error)})`);
  } finally {
    closeSync(fd);
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isDirectory()) return "a folder";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}

/**
 * Where the configuration lives, without reading it (`skillgate override`
 * must work while the configuration file is broken).
 *
 * @param input argv (`--config`, `--no-config`), environment lookup and working directory.
 * @returns The location, or null under `--no-config`.
 * @throws {UsageError} On a bad `--config` / `--no-config` value.
 */
export function locateConfigOnly(
  input: Omit<CommandLineInput, "file" | "isLocatingFile">,
): ConfigLocation | null {
  return locateConfig(parseCommandLine({ ...input, isLocatingFile: true }), input.getEnv);
}

/** What {@linkcode loadConfig} found. */
export interface LoadedConfig {
  readonly config: Config;
  /** Where the configuration lives (null under `--no-config`). */
  readonly location: ConfigLocation | null;
  /** The checked file, or null when none was read. */
  readonly file: ConfigFile | null;
}

/**
 * The effective configuration: flags > variables > configuration file >
 * defaults, per option; roots from the file only when no ROOT argument,
 * `MCP_SKILLS_PATH` or `SKILLS_DIR` gives any.
 *
 * @param input argv, environment lookup and working directory.
 * @returns The configuration, where the files are, and the file read.
 * @throws {UsageError} On a bad command line (see `parseCommandLine`), or
 *   when `--config` names a file that does not exist.
 * @throws {ConfigFileError} When the file is not valid (located message).
 *
 * Requires `--allow-read` on the configuration file (trusted part only).
 */
export async function loadConfig(
  input: Omit<CommandLineInput, "file" | "isLocatingFile">,
): Promise<LoadedConfig> {
  const first = parseCommandLine({ ...input, isLocatingFile: true });
  if (first.command === "help" || first.command === "version") {
    return { config: first, location: null, file: null };
  }
  const location = locateConfig(first, input.getEnv);
  let file: ConfigFile | null = null;
  if (location !== null) {
    const text = await readOwnerFile(location.path);
    if (text === null && location.isExplicit) {
      throw new UsageError(
        `The configuration file "${location.path}" does not exist; fix --config / ` +
          "SKILLGATE_CONFIG or create the file",
      );
    }
    if (text !== null) {
      file = parseConfigFile(location.path, text);
      const untrusted = untrustedBecause(location.path);
      if (untrusted !== null && !first.hosted) {
        throw new ConfigFileError(location.path, 1, 1, untrusted);
      }
      if (untrusted !== null) {
        const config = parseCommandLine({ ...input, file });
        return {
          config: Object.freeze({
            ...config,
            notices: Object.freeze([
              ...config.notices,
              `the configuration file "${location.path}": ${untrusted} (hosted, the file only ` +
              "narrows, so it is read)",
            ]),
          }),
          location,
          file,
        };
      }
    }
  }
  return { config: parseCommandLine({ ...input, file }), location, file };
}

const uncheckable = (what: string, error: unknown) =>
  `${what} could not be checked (${error instanceof Error ? error.name : "error"}) after it was ` +
  "read, so it is not trusted (a trust check fails closed: review r17, hD-1); run skillgate " +
  "again, and keep the configuration in a folder of your own";

/**
 * Why the configuration file cannot be trusted, or null when it can: the
 * file (what a link ends at) must belong to this user or root, and neither
 * others nor a group holding another user may write it; its folder (and the
 * folder of what a link ends at) likewise, unless sticky (as `/tmp`: no one
 * may rename another's entry); and no folder above those may let another
 * user rename them away and put their own in place (`swappableAncestor`, the
 * caches' rule: each ancestor root's or this user's, a writable one sticky;
 * r14). Standalone, the file decides what is served
 * and how scripts run (roots, `isolation`, HTTP, origins, caps), so one that
 * another user could write is refused, as `--http-token-file` is, and as ssh
 * refuses a writable `~/.ssh` (StrictModes). A group write bit counts only
 * when the group holds another user (`/etc/group` members or a user whose
 * primary group it is): under umask 002 a user's private group is the norm.
 *
 * @param path The configuration file's absolute path (it exists and was read).
 * @returns A sentence naming the fault and the command that fixes it, or null.
 *   A file or folder that cannot be looked at after the read (gone, swapped
 *   away, unreadable) is a fault too: the check fails closed.
 *
 * Requires `--allow-read` on the file, its folders, `/etc/group` and
 * `/etc/passwd` (trusted part).
 */
export function untrustedBecause(path: string): string | null {
  const me = Deno.uid();
  if (me === null) return null;
  let real = path;
  try {
    real = Deno.realPathSync(path);
  } catch (error) {
    return uncheckable(`"${path}"`, error);
  }
  const checks: [string, string][] = [[real, "file"], [dirname(path), "folder"]];
  if (dirname(real) !== dirname(path)) checks.push([dirname(real), "folder"]);
  for (const [target, kind] of checks) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(target);
    } catch (error) {
      return uncheckable(`its ${kind} "${target}"`, error);
    }
    const mode = info.mode ?? 0;
    const fix = `chmod go-w ${target}`;
    if (info.uid !== null && info.uid !== me && info.uid !== 0) {
      return `its ${kind} "${target}" belongs to another user (uid ${info.uid}), who could ` +
        `change what skillgate serves and runs; use a ${kind} of your own`;
    }
    if (kind === "folder" && (mode & 0o1000) !== 0) continue;
    if ((mode & 0o002) !== 0) {
      return `its ${kind} "${target}" is writable by others, who could change what skillgate ` +
        `serves and runs; run: ${fix}`;
    }
    if ((mode & 0o020) !== 0 && info.gid !== null && groupHoldsOthers(info.gid, me)) {
      return `its ${kind} "${target}" is writable by its group (gid ${info.gid}), which holds ` +
        `other users who could change what skillgate serves and runs; run: ${fix}`;
    }
  }
  // The folders above (r14): one another user may write lets them rename the configuration's
  // folder away and put their own in its place. The caches' rule (`swappableAncestor`).
  const folders = [dirname(real)];
  try {
    const folder = Deno.realPathSync(dirname(path));
    if (folder !== dirname(real)) folders.push(folder);
  } catch (error) {
    return uncheckable(`its folder "${dirname(path)}"`, error);
  }
  for (const folder of folders) {
    let unsafe: string | null;
    try {
      unsafe = swappableAncestor(folder, me);
    } catch (error) {
      return uncheckable(`the folders above "${folder}"`, error);
    }
    if (unsafe !== null) {
      return `its folder "${folder}" lies under "${unsafe}", where another user could rename it ` +
        "away and put a folder of theirs in its place, changing what skillgate serves and runs; " +
        `run: chmod go-w ${unsafe} (or keep the configuration in a folder of your own)`;
    }
  }
  return null;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

/**
 * The owner's overrides at start-up: `overrides.json` beside the
 * configuration file, or none.
 *
 * Not put through {@linkcode untrustedBecause}, by decision (review r12): the
 * file can only take served skills out, never add a root, grant or run, and
 * its folder is the configuration file's, which that check covers when there
 * is one; a foreign
 * writer of the file alone could undo the owner's narrowing or break the file
 * (start refused). `skillgate override` writes it owner-only. README,
 * "Per-skill overrides", says so.
 *
 * @param location Where the configuration lives (null under `--no-config`: none).
 * @returns The overrides by skill name.
 * @throws {ConfigFileError} When the file is not valid (located message).
 *
 * Requires `--allow-read` on the file (trusted part only).
 */
export async function loadOverrides(location: ConfigLocation | null): Promise<SkillOverrides> {
  if (location === null) return {};
  const text = await readOwnerFile(location.overridesPath);
  return text === null ? {} : parseOverridesFile(location.overridesPath, text);
}

/**
 * Reads `overrides.json`'s `setByView` (the switches a settings view turned off).
 *
 * @param location Where the configuration lives, or null under `--no-config`.
 * @returns The switches by skill name (none when there is no file).
 * @throws {ConfigFileError} When the file is not valid.
 *
 * Requires `--allow-read` on the configuration folder (trusted part only).
 */
export async function loadSetByView(location: ConfigLocation | null): Promise<SetByView> {
  if (location === null) return {};
  const text = await readOwnerFile(location.overridesPath);
  return text === null ? {} : parseSetByView(location.overridesPath, text);
}
