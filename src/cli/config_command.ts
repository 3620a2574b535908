/**
 * `skillgate config [--json]`: the effective configuration, each value with
 * where it came from (flag, variable, file or default), the roots with
 * theirs, and where the configuration and overrides files are. Secrets are
 * never shown: the HTTP token's file is named, its content is not.
 *
 * @module
 */

import type { Config, OptionSource } from "../config/config.ts";
import type { ConfigLocation } from "../config/file/load_config.ts";
import { fileKeyOf, OPTIONS } from "../config/options.ts";
import { cacheAtRoot, rootProblem } from "../config/index_cache_dir.ts";
import { checkRoots } from "../config/root_check.ts";
import type { RootOrigin } from "../skills/skill.ts";
import type { CommandIo } from "./command_io.ts";
import { jsonForTerminal, padEnd } from "./terminal_text.ts";

/** The `--json` shape of `skillgate config`. */
export interface ConfigReport {
  /** The configuration file: its path, and whether it was read (null under `--no-config`). */
  readonly configFile: { readonly path: string; readonly isRead: boolean } | null;
  /** `overrides.json` beside it (null under `--no-config`). */
  readonly overridesFile: string | null;
  readonly roots: readonly {
    readonly path: string;
    readonly from: RootOrigin;
    /**
     * Set when the root is no readable folder now: the message serve, list and
     * validate refuse it with (`src/config/root_check.ts`). @default not set
     */
    readonly problem?: string;
  }[];
  /** Every option by its file key: value, source, flag and variable. */
  readonly options: Record<string, {
    readonly value: unknown;
    readonly source: OptionSource;
    readonly flag: string;
    readonly env: string;
    /**
     * `indexCache` only: where the folder in use comes from, or why there is
     * none ("off: ..."); its `value` is the folder in use, or null.
     */
    readonly note?: string;
  }>;
  /** Whether a host started skillgate (the file may then only narrow). */
  readonly hostedBy: string | null;
}

/**
 * Builds the report. Pure.
 *
 * @param config The effective configuration (from `loadConfig`).
 * @param location Where the configuration lives, or null under `--no-config`.
 * @param facts `indexCacheRoot`: the skill root the index cache folder is,
 *   holds or lies inside (serve then runs without it), or null; `rootProblems`:
 *   why a root (by path) is no usable folder now. @default none of either
 * @returns The report. `indexCache` shows the folder in use (review n8: it
 *   showed the option's `null`, which means "the default place"), or null
 *   with a note saying why there is none.
 */
export function configReport(
  config: Config,
  location: ConfigLocation | null,
  facts: {
    readonly indexCacheRoot?: string | null;
    readonly rootProblems?: ReadonlyMap<string, string>;
  } = {},
): ConfigReport {
  const options: Record<string, ConfigReport["options"][string]> = {};
  const values = config.options as unknown as Record<string, unknown>;
  for (const option of OPTIONS) {
    options[fileKeyOf(option)] = {
      value: values[option.key] ?? null,
      source: config.sources?.[option.key] ?? "default",
      flag: `--${option.flag}`,
      env: option.env,
    };
  }
  const cache = options.indexCache;
  if (cache !== undefined) {
    const root = facts.indexCacheRoot ?? null;
    options.indexCache = {
      ...cache,
      value: root === null ? config.indexCacheDir : null,
      note: root !== null
        ? `off: ${config.indexCacheDir} ${rootProblem(root)}`
        : config.indexCacheWhy ?? (config.indexCacheDir === null ? "off" : "in use"),
    };
  }
  return {
    configFile: location === null
      ? null
      : { path: location.path, isRead: config.configFile === location.path },
    overridesFile: location?.overridesPath ?? null,
    roots: config.roots.map((root) => {
      const problem = facts.rootProblems?.get(root.path);
      return problem === undefined
        ? { path: root.path, from: root.from }
        : { path: root.path, from: root.from, problem };
    }),
    options,
    hostedBy: config.hostedBy,
  };
}

/**
 * Runs `skillgate config`: prints the report as a table, or JSON with `--json`.
 *
 * @param config The effective configuration.
 * @param location Where the configuration lives, or null under `--no-config`.
 * @param io Outputs.
 * @returns 0.
 *
 * Requires `--allow-read` on the index cache folder and the roots (stat and
 * realpath, as the roots' start-up check), which the trusted part holds.
 */
export async function runConfigCommand(
  config: Config,
  location: ConfigLocation | null,
  io: CommandIo,
): Promise<number> {
  const cacheDir = config.indexCacheDir;
  // The roots' start-up check, as serve, list and validate run it: its message is theirs.
  const { failures } = await checkRoots(config.roots, []);
  const rootProblems = new Map(failures.map((failure) => [failure.path, failure.message]));
  const report = configReport(config, location, {
    indexCacheRoot: cacheDir === null
      ? null
      : cacheAtRoot(cacheDir, config.roots.map((root) => root.path)),
    rootProblems,
  });
  await io.writeOut(config.options.json ? `${jsonForTerminal(report)}\n` : renderConfig(report));
  return 0;
}

/**
 * The table form of the report.
 *
 * @param report From {@linkcode configReport}.
 * @returns Lines ending in a newline.
 */
export function renderConfig(report: ConfigReport): string {
  const lines: string[] = [];
  const file = report.configFile;
  lines.push(
    file === null
      ? "configuration file: none (--no-config)"
      : `configuration file: ${file.path} (${file.isRead ? "read" : "not found"})`,
  );
  if (report.overridesFile !== null) lines.push(`overrides file:     ${report.overridesFile}`);
  if (report.hostedBy !== null) {
    lines.push(`hosted (${report.hostedBy} is set): the file may only narrow what the host set`);
  }
  lines.push("", "roots:");
  if (report.roots.length === 0) lines.push("  (none)");
  for (const root of report.roots) {
    lines.push(
      `  ${root.path}  (${root.from})` +
        (root.problem === undefined
          ? ""
          : `\n    refused by serve, list and validate: ${root.problem}`),
    );
  }
  lines.push("", "options:");
  const entries = Object.entries(report.options);
  const keyWidth = Math.max(...entries.map(([key]) => key.length));
  const valueWidth = Math.min(40, Math.max(...entries.map(([, o]) => show(o.value).length)));
  for (const [key, option] of entries) {
    const value = option.note?.startsWith("off") ? "off" : show(option.value);
    lines.push(
      `  ${padEnd(key, keyWidth)}  ${padEnd(value, valueWidth)}  ${option.source}` +
        (option.note === undefined ? "" : `  (${option.note})`),
    );
  }
  return `${lines.join("\n")}\n`;
}

function show(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.join(",");
  return value === null ? "null" : String(value);
}
