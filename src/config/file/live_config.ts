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
  type OverrideSwitch,
  ownEntry,
  type SkillOverrides,
} from "../../skills/overrides.ts";
import { type ConfigFile, parseConfigFile } from "./config_file.ts";
import { ConfigFileError } from "./json_document.ts";
import type { ConfigLocation } from "./load_config.ts";
import { narrows, sameValue } from "./narrowing.ts";
import { parseOverridesFile, parseSetByView, type SetByView } from "./overrides_file.ts";

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
  /** The switches a settings view turned off (`setByView`), as last read. @default none */
  readonly setByView?: SetByView;
}

/** The options applied while serving when an edit lowers them: the caps. */
export const LIVE_CAP_KEYS: readonly (keyof Caps)[] = Object.freeze(
  Object.keys(DEFAULT_CAPS) as (keyof Caps)[],
);

/** The outcome of reading the owner's files again. */
export interface LiveReview {
  /**
   * The owner's version of each problem's detail, in the same order: with
   * the values, skill names and messages the client-facing detail leaves out
   * (house rule: client-facing text never echoes host paths or allow-lists).
   * For stderr only.
   */
  readonly ownerDetails: readonly string[];
  /** The overrides now in force (the previous ones, narrowed by the edit). */
  readonly overrides: SkillOverrides;
  /** The caps now in force (the previous ones, lowered by the edit). */
  readonly caps: Caps;
  /** `setByView` as the file now says, kept to the switches off in `overrides`. */
  readonly setByView: SetByView;
  /** `restart-needed` and `config-invalid` problems (empty when all is applied). */
  readonly problems: readonly Problem[];
}

/**
 * Compares the owner's files as they are now with what is in force.
 *
 * @param state What is in force.
 * @param configText The configuration file's text now (null: absent; a
 *   {@linkcode ConfigFileError}: it could not be read, e.g. not a regular file).
 * @param overridesText `overrides.json`'s text now (null: absent; an error
 *   as for `configText`).
 * @param wasAccepted Whether a read of both files since start-up was
 *   accepted: what a `config-invalid` problem says is in force. True: the
 *   last good configuration stays. False (serve's first read while serving
 *   failed): requests are refused until the file is fixed, as serve does
 *   (session 13, hA), never served on start-up's settings. @default true
 * @returns The narrowed overrides and the problems to report.
 *
 * Source: issue 19, "Live changes".
 */
export function reviewOwnerFiles(
  state: LiveConfigState,
  configText: string | null | ConfigFileError,
  overridesText: string | null | ConfigFileError,
  wasAccepted = true,
): LiveReview {
  const invalid = (file: string, error: unknown) =>
    invalidFinding(file, error, wasAccepted ? KEPT : REFUSED);
  const found: Finding[] = [];
  const configName = basename(state.location.path);
  const overridesName = basename(state.location.overridesPath);
  let file: ConfigFile | null = null;
  let next: Config | null = null;
  try {
    if (configText instanceof ConfigFileError) throw configText;
    if (configText !== null) file = parseConfigFile(state.location.path, configText);
    next = parseCommandLine({ ...state.input, file });
  } catch (error) {
    found.push(invalid(configName, error));
  }
  let caps = state.caps;
  if (next !== null) {
    const changes = optionChanges(state, next, configName);
    caps = changes.caps;
    found.push(...changes.found);
  }
  let overrides = state.overrides;
  let setByView = state.setByView ?? {};
  try {
    if (overridesText instanceof ConfigFileError) throw overridesText;
    const proposed = overridesText === null
      ? {}
      : parseOverridesFile(state.location.overridesPath, overridesText);
    const narrowed = narrowOverrides(state.overrides, proposed);
    overrides = narrowed.overrides;
    // Carried forward, never revived: an entry stays the view's only while it was the view's at
    // the last review (or the view wrote it since) and its switch stayed off. One whose switch the
    // owner turned on by hand dies then, so the owner's later hand-set "off" is the owner's
    // (review r14, H2); the watch also drops it from the file.
    setByView = keptSetByView(
      commonSetByView(
        overridesText === null ? {} : parseSetByView(state.location.overridesPath, overridesText),
        state.setByView ?? {},
      ),
      overrides,
    );
    if (narrowed.widened.length > 0) {
      const count = narrowed.widened.length;
      const tail = "widens what is served, so it takes effect at the next start; until then " +
        "the override stays in force";
      found.push(restartNeeded(
        overridesName,
        `turning back on ${count} override${count === 1 ? "" : "s"} ${tail}`,
        `turning back on ${narrowed.widened.join(", ")} ${tail}`,
      ));
    }
  } catch (error) {
    found.push(invalid(overridesName, error));
  }
  return {
    overrides,
    caps,
    setByView,
    problems: found.map((finding) => finding.problem),
    ownerDetails: found.map((finding) => finding.ownerDetail),
  };
}

/** A problem for clients and the owner's fuller detail of it. */
interface Finding {
  readonly problem: Problem;
  readonly ownerDetail: string;
}

/**
 * The overlay the worker serves for a review.
 *
 * @param review From {@linkcode reviewOwnerFiles}.
 * @returns The overrides and the problems, frozen.
 */
export function overlayOf(
  review: Omit<LiveReview, "setByView"> & { readonly setByView?: SetByView },
): CatalogOverlay {
  return Object.freeze({
    overrides: review.overrides,
    problems: Object.freeze([...review.problems]),
    setByView: review.setByView ?? {},
  });
}

/**
 * `setByView` kept to the switches that are off in `overrides` (a switch on
 * again, or never off, cannot be a view's to turn back on).
 *
 * @param setByView As read from the file.
 * @param overrides The overrides in force.
 * @returns The kept entries (names without a switch left out).
 */
export function keptSetByView(setByView: SetByView, overrides: SkillOverrides): SetByView {
  const kept: Record<string, OverrideSwitch[]> = {};
  for (const [name, switches] of Object.entries(setByView)) {
    const entry = ownEntry(overrides, name);
    const off = switches.filter((key) => entry?.[key] === false);
    if (off.length > 0) kept[name] = off;
  }
  return kept;
}

/**
 * The switches both records hold, per name.
 *
 * @param fromFile `setByView` as the file says now.
 * @param inForce `setByView` as it was in force.
 * @returns The entries in both (names without a switch left out).
 */
export function commonSetByView(fromFile: SetByView, inForce: SetByView): SetByView {
  const common: Record<string, OverrideSwitch[]> = {};
  for (const [name, switches] of Object.entries(fromFile)) {
    const held = ownEntry(inForce, name) ?? [];
    const both = switches.filter((key) => held.includes(key));
    if (both.length > 0) common[name] = both;
  }
  return common;
}

/**
 * The caps the edit lowers (applied), and a `restart-needed` problem for
 * every other option or root it changed.
 */
function optionChanges(
  state: LiveConfigState,
  next: Config,
  file: string,
): { caps: Caps; found: Finding[] } {
  const found: Finding[] = [];
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
    found.push(restartNeeded(
      file,
      `"${fileKeyOf(option)}" changed: this ${how}`,
      `"${fileKeyOf(option)}" changed from ${show(was)} to ${show(now)}: this ${how}`,
    ));
  }
  const rootsBefore = state.running.roots.map((root) => root.path);
  const rootsAfter = next.roots.map((root) => root.path);
  if (!sameValue(rootsBefore, rootsAfter)) {
    const detail = "the roots changed: new roots are read only after a restart (the worker " +
      "may not read outside the roots it started with)";
    found.push(restartNeeded(file, detail, detail));
  }
  return { caps: Object.freeze(caps) as unknown as Caps, found };
}

function restartNeeded(file: string, detail: string, ownerDetail: string): Finding {
  return {
    problem: Object.freeze({ path: file, reason: "restart-needed", severity: "warning", detail }),
    ownerDetail,
  };
}

const KEPT = "; the last good configuration stays in force";
const REFUSED = "; no request is answered until it is fixed or removed";

function invalidFinding(file: string, error: unknown, inForce: string): Finding {
  if (error instanceof ConfigFileError) {
    // What the owner typed (", got ...") stays on the owner's terminal: it may be an allow-list entry.
    const cut = error.detail.indexOf(", got ");
    const detail = cut < 0 ? error.detail : error.detail.slice(0, cut);
    return {
      problem: Object.freeze({
        path: file,
        reason: "config-invalid",
        severity: "error",
        detail: `${detail}${inForce}`,
        line: error.line,
        column: error.column,
      }),
      ownerDetail: `${error.detail}${inForce}`,
    };
  }
  if (error instanceof UsageError) {
    return {
      problem: Object.freeze({
        path: file,
        reason: "config-invalid",
        severity: "error",
        detail: "the file does not fit the command line and environment skillgate started " +
          `with (the owner's terminal says why)${inForce}`,
      }),
      ownerDetail: `${error.message}${inForce}`,
    };
  }
  throw error;
}

function show(value: unknown): string {
  return JSON.stringify(value);
}
