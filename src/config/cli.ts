/**
 * Turns argv and the environment into a frozen {@linkcode Config}. Pure: the
 * caller passes in what it read from the world, so every rule is testable.
 *
 * @module
 */

import { isAbsolute, join, normalize, resolve } from "node:path";
import { type Caps, DEFAULT_CAPS } from "../caps.ts";
import type { Root, RootOrigin } from "../skills/skill.ts";
import type { Command, Config } from "./config.ts";
import { isUnsetValue, splitRootList } from "./env_value.ts";
import { CAP_OPTIONS } from "./options.ts";

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
}

/** Variables a host runner injects; any of them marks the server hosted. */
export const HOSTED_MARKERS: readonly string[] = Object.freeze([
  "MCP_SKILLS_PATH",
  "MCP_HOST_METER_FILE",
  "MCP_DATA_DIR",
  "MCP_BLOB_BASE_URL",
]);

/**
 * Parses `skillgate [serve] [ROOT...] [options]`.
 *
 * Roots: `MCP_SKILLS_PATH` wins (and marks the server hosted), then ROOT
 * arguments, then `SKILLS_DIR`; list values split on `:` and `,`; a blank
 * value or a literal `${VAR}` counts as unset; `~/` expands to `HOME`;
 * relative roots resolve against `cwd`; duplicates are dropped.
 *
 * @param input argv, an environment lookup and the working directory.
 * @returns The frozen configuration.
 * @throws {UsageError} On an unknown flag or command, a bad option value, or
 *   when `serve` has no root at all.
 */
export function parseCommandLine(input: CommandLineInput): Config {
  const caps: Record<keyof Caps, number> = { ...DEFAULT_CAPS };
  for (const option of CAP_OPTIONS) {
    const fromEnv = input.getEnv(option.env);
    if (!isUnsetValue(fromEnv)) {
      caps[option.cap] = parseBoundedInteger(fromEnv, option.env, option.min, option.max);
    }
  }
  let command: Command = "serve";
  const rootArgs: string[] = [];
  let sawCommand = false;
  for (let index = 0; index < input.args.length; index++) {
    const arg = input.args[index] ?? "";
    if (arg === "--help" || arg === "-h" || arg === "help") return freezeConfig("help", [], caps);
    if (arg === "--version" || arg === "-V") return freezeConfig("version", [], caps);
    if (arg === "--") {
      rootArgs.push(...input.args.slice(index + 1));
      break;
    }
    if (arg.startsWith("-")) {
      const [flag, inlineValue] = splitFlag(arg);
      const option = CAP_OPTIONS.find((candidate) => candidate.flag === flag);
      if (option === undefined) {
        throw new UsageError(`Unknown option "${arg}"; run "skillgate --help" for the list`);
      }
      const value = inlineValue ?? input.args[++index];
      if (value === undefined) throw new UsageError(`Option "--${flag}" needs a value`);
      caps[option.cap] = parseBoundedInteger(value, `--${flag}`, option.min, option.max);
      continue;
    }
    if (!sawCommand && rootArgs.length === 0 && arg === "serve") {
      sawCommand = true;
      command = "serve";
      continue;
    }
    rootArgs.push(arg);
  }
  const home = input.getEnv("HOME");
  const hostedBy = HOSTED_MARKERS.find((name) => !isUnsetValue(input.getEnv(name))) ?? null;
  const roots: Root[] = [];
  const addRoots = (values: readonly string[], from: RootOrigin) => {
    for (const value of values) {
      const path = resolveRootPath(value, input.cwd, home);
      if (!roots.some((root) => root.path === path)) roots.push({ path, from });
    }
  };
  const hostedPath = input.getEnv("MCP_SKILLS_PATH");
  const skillsDir = input.getEnv("SKILLS_DIR");
  if (!isUnsetValue(hostedPath)) addRoots(splitRootList(hostedPath), "MCP_SKILLS_PATH");
  else if (rootArgs.length > 0) addRoots(rootArgs, "argument");
  else if (!isUnsetValue(skillsDir)) addRoots(splitRootList(skillsDir), "SKILLS_DIR");
  if (command === "serve" && roots.length === 0) {
    throw new UsageError(
      "No skill root given; pass a folder (skillgate serve ~/skills) or set SKILLS_DIR",
    );
  }
  return Object.freeze({
    command,
    roots: Object.freeze(roots.map((root) => Object.freeze(root))),
    hosted: hostedBy !== null,
    hostedBy,
    caps: Object.freeze(caps),
  });
}

function freezeConfig(command: Command, roots: Root[], caps: Caps): Config {
  return Object.freeze({
    command,
    roots: Object.freeze(roots),
    hosted: false,
    hostedBy: null,
    caps: Object.freeze({ ...caps }),
  });
}

function splitFlag(arg: string): [string, string | undefined] {
  const body = arg.replace(/^--?/, "");
  const equals = body.indexOf("=");
  return equals < 0 ? [body, undefined] : [body.slice(0, equals), body.slice(equals + 1)];
}

function parseBoundedInteger(value: string, source: string, min: number, max: number): number {
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

function resolveRootPath(value: string, cwd: string, home: string | undefined): string {
  let path = value;
  if ((path === "~" || path.startsWith("~/")) && home !== undefined && home !== "") {
    path = join(home, path.slice(1));
  }
  path = isAbsolute(path) ? normalize(path) : resolve(cwd, path);
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
