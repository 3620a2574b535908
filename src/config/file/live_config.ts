/**
 * Live changes to the owner's files, decided in the trusted part: after an
 * edit of the configuration file or `overrides.json`, both are read again
 * and compared with what is in force. Narrowing overrides (disabling or
 * hiding a skill, dropping its prompt) and lowered caps are sent to the
 * worker at once; anything else that changed (a new root, a raised cap, a
 * relaxed mode, an override turned back on, and option changes that only a
 * restart can apply) is reported as `restart-needed` and not applied. A broken edit
 * keeps the last good state and reports `config-invalid` with its line and
 * column. The worker never reads these files: it receives the result.
 *
 * @module
 */

import { basename } from "node:path";
import { type Caps, DEFAULT_CAPS } from "../../caps.ts";
import { type CommandLineInput, parseCommandLine, UsageError } from "../cli.ts";
import type { Config } from "../config.ts";
import { fileKeyOf, OPTIONS } from "../options.ts";
import type { Problem } from "../../skills/problem.ts";
import {
  type CatalogOverlay,
  narrowOverrides,
  type SkillOverrides,
} from "../../skills/overrides.ts";
import { type ConfigFile, parseConfigFile } from "./config_file.ts";
import { ConfigFileError } from "./json_document.ts";
import type { ConfigLocation } from "./load_config.ts";
import { narrows, sameValue } from "./narrowing.ts";
import { parseOverridesFile } from "./overrides_file.ts";

/** What the live review compares against: the start-up configuration and the overrides in force. */
export interface LiveConfigState {
  /** argv, environment lookup and working directory, as at start-up. */
  readonly input: Omit<CommandLineInput, "file" | "isLocatingFile">;
  /** The configuration in force (decided at start-up; options never change while serving). */
  readonly running: Config;
  readonly location: ConfigLocation;
  /** The overrides in force (only ever narrowed). */
  readonly overrides: SkillOverrides;
  /** The caps in force (only ever lowered; `running.caps` at start-up). */
  readonly caps: Caps;
}

/** The options applied while serving when an edit lowers them: the caps. */
export const LIVE_CAP_KEYS: readonly (keyof Caps)[] = Object.freeze(
  Object.keys(DEFAULT_CAPS) as (keyof Caps)[],
);

/** The outcome of reading the owner's files again. */
export interface LiveReview {
  /** The overrides now in force (the previous ones, narrowed by the edit). */
  readonly overrides: SkillOverrides;
  /** The caps now in force (the previous ones, lowered by the edit). */
  readonly caps: Caps;
  /** `restart-needed` and `config-invalid` problems (empty when all is applied). */
  readonly problems: readonly Problem[];
}

/**
 * Compares the owner's files as they are now with what is in force.
 *
 * @param state What is in force.
 * @param configText The configuration file's text now (null: absent).
 * @param overridesText `overrides.json`'s text now (null: absent).
 * @returns The narrowed overrides and the problems to report.
 *
 * Source: issue 19, "Live changes".
 */
export function reviewOwnerFiles(
  state: LiveConfigState,
  configText: string | null,
  overridesText: string | null,
): LiveReview {
  const problems: Problem[] = [];
  const configName = basename(state.location.path);
  const overridesName = basename(state.location.overridesPath);
  let file: ConfigFile | null = null;
  let next: Config | null = null;
  try {
    if (configText !== null) file = parseConfigFile(state.location.path, configText);
    next = parseCommandLine({ ...state.input, file });
  } catch (error) {
    problems.push(invalid(configName, error));
  }
  let caps = state.caps;
  if (next !== null) {
    const changes = optionChanges(state, next, configName);
    caps = changes.caps;
    problems.push(...changes.problems);
  }
  let overrides = state.overrides;
  try {
    const proposed = overridesText === null
      ? {}
      : parseOverridesFile(state.location.overridesPath, overridesText);
    const narrowed = narrowOverrides(state.overrides, proposed);
    overrides = narrowed.overrides;
    if (narrowed.widened.length > 0) {
      problems.push(restartNeeded(
        overridesName,
        `turning back on ${narrowed.widened.join(", ")} widens what is served, so it takes ` +
          "effect at the next start; the override stays in force until then",
      ));
    }
  } catch (error) {
    problems.push(invalid(overridesName, error));
  }
  return { overrides, caps, problems };
}

/**
 * The overlay the worker serves for a review.
 *
 * @param review From {@linkcode reviewOwnerFiles}.
 * @returns The overrides and the problems, frozen.
 */
export function overlayOf(review: LiveReview): CatalogOverlay {
  return Object.freeze({
    overrides: review.overrides,
    problems: Object.freeze([...review.problems]),
  });
}

/**
 * The caps the edit lowers (applied), and a `restart-needed` problem for
 * every other option or root it changed.
 */
function optionChanges(
  state: LiveConfigState,
  next: Config,
  file: string,
): { caps: Caps; problems: Problem[] } {
  const problems: Problem[] = [];
  const caps: Record<string, number> = { ...state.caps };
  const before = { ...state.running.options, ...state.caps } as unknown as Record<string, unknown>;
  const after = next.options as unknown as Record<string, unknown>;
  for (const option of OPTIONS) {
    if (option.isFileKey === false) continue;
    const was = before[option.key];
    const now = after[option.key];
    if (sameValue(now, was)) continue;
    const isNarrowing = narrows(option, now, was);
    if (isNarrowing && (LIVE_CAP_KEYS as readonly string[]).includes(option.key)) {
      caps[option.key] = now as number;
      continue;
    }
    const how = isNarrowing
      ? "narrows, but applies only at the next start"
      : "widens what skillgate serves, reads or runs, so it is not applied while serving";
    problems.push(restartNeeded(
      file,
      `"${fileKeyOf(option)}" changed from ${show(was)} to ${show(now)}: this ${how}`,
    ));
  }
  const rootsBefore = state.running.roots.map((root) => root.path);
  const rootsAfter = next.roots.map((root) => root.path);
  if (!sameValue(rootsBefore, rootsAfter)) {
    problems.push(restartNeeded(
      file,
      "the roots changed: new roots are read only after a restart (the worker may not read " +
        "outside the roots it started with)",
    ));
  }
  return { caps: Object.freeze(caps) as unknown as Caps, problems };
}

function restartNeeded(file: string, detail: string): Problem {
  return Object.freeze({ path: file, reason: "restart-needed", severity: "warning", detail });
}

function invalid(file: string, error: unknown): Problem {
  if (error instanceof ConfigFileError) {
    return Object.freeze({
      path: file,
      reason: "config-invalid",
      severity: "error",
      detail: `${error.detail}; the last good configuration stays in force`,
      line: error.line,
      column: error.column,
    });
  }
  if (error instanceof UsageError) {
    return Object.freeze({
      path: file,
      reason: "config-invalid",
      severity: "error",
      detail: `${error.message}; the last good configuration stays in force`,
    });
  }
  throw error;
}

function show(value: unknown): string {
  return JSON.stringify(value);
}
