/**
 * `skillgate override NAME --disable|--enable|--hide-from-model|
 * --show-to-model|--no-prompt|--prompt`: edits `overrides.json` beside the
 * configuration file, so the owner at a terminal is the only writer. The
 * file is written whole to a temporary file in the same folder and renamed
 * over the old one, so a running skillgate never reads half a file. Without
 * a switch it prints the overrides in force (all, or NAME's).
 *
 * @module
 */

import { UsageError } from "../config/cli.ts";
import { type ConfigLocation, readOwnerFile } from "../config/file/load_config.ts";
import {
  isOverrideName,
  overridesFileText,
  parseOverridesFile,
  parseSetByView,
} from "../config/file/overrides_file.ts";
import { writeAtomically } from "../config/file/write_atomically.ts";
import {
  type OverrideSwitch,
  ownEntry,
  type SkillOverride,
  type SkillOverrides,
} from "../skills/overrides.ts";
import type { CommandIo } from "./command_io.ts";
import type { ConfiguredSkillNames } from "./configured_skill_names.ts";
import { jsonForTerminal } from "./terminal_text.ts";

/** Each switch of the command: the override key it sets, and to what. */
export const OVERRIDE_FLAGS: Readonly<Record<string, readonly [OverrideSwitch, boolean]>> = {
  "--disable": ["enabled", false],
  "--enable": ["enabled", true],
  "--hide-from-model": ["modelInvocable", false],
  "--show-to-model": ["modelInvocable", true],
  "--no-prompt": ["userInvocable", false],
  "--prompt": ["userInvocable", true],
};

/** What `skillgate override` was asked. */
export interface OverrideRequest {
  /** The served skill name, or null to print every override. */
  readonly name: string | null;
  /** Switches to set, in order (never both values of one switch; a repeat is harmless). */
  readonly changes: readonly (readonly [OverrideSwitch, boolean])[];
}

/**
 * Splits `override`'s arguments into the configuration options (`--config`,
 * `--config=PATH`, `--no-config`, read by the usual parser) and its own.
 *
 * @param args The arguments after `override`.
 * @returns Both lists, in order.
 */
export function splitOverrideArgs(
  args: readonly string[],
): { configArgs: string[]; own: string[] } {
  const configArgs: string[] = [];
  const own: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "--no-config" || arg.startsWith("--config=")) configArgs.push(arg);
    else if (arg === "--config") configArgs.push(arg, args[++index] ?? "");
    else own.push(arg);
  }
  return { configArgs, own };
}

/**
 * Reads the command's own arguments (after `override`; the configuration
 * options `--config` / `--no-config` were already taken by the parser).
 *
 * @param args The arguments after `override`, without configuration options.
 * @returns The request.
 * @throws {UsageError} On an unknown switch, more than one name, a name no
 *   skill folder can have, or two switches that contradict each other
 *   (`--enable --disable`: the message names both; before, the later one
 *   silently won).
 */
export function parseOverrideArgs(args: readonly string[]): OverrideRequest {
  let name: string | null = null;
  const changes: (readonly [OverrideSwitch, boolean])[] = [];
  for (const arg of args) {
    // Own keys only: "constructor" or "toString" is a skill name, not a switch.
    const change = Object.hasOwn(OVERRIDE_FLAGS, arg) ? OVERRIDE_FLAGS[arg] : undefined;
    if (change !== undefined) {
      const clash = changes.find(([key, value]) => key === change[0] && value !== change[1]);
      if (clash !== undefined) {
        throw new UsageError(
          `${flagOf(clash)} and ${arg} contradict each other; give one of them`,
        );
      }
      changes.push(change);
    } else if (arg.startsWith("-")) {
      throw new UsageError(
        `Unknown override switch "${arg}"; use ${Object.keys(OVERRIDE_FLAGS).join(", ")}`,
      );
    } else if (name !== null) throw new UsageError("skillgate override takes one skill name");
    else name = arg;
  }
  if (name !== null && !isOverrideName(name)) {
    throw new UsageError(`"${name}" cannot be a skill's name`);
  }
  if (name === null && changes.length > 0) {
    throw new UsageError("Name the skill: skillgate override NAME --disable");
  }
  return { name, changes };
}

/**
 * Runs `skillgate override`.
 *
 * @param request From {@linkcode parseOverrideArgs}.
 * @param location Where the configuration lives (null under `--no-config`: refused).
 * @param io Outputs.
 * @param options `servedNames`: looks up the names served under the
 *   configured roots now (`configuredSkillNames`), called after a write; when
 *   it answers and NAME is not among them, one stderr line says so (the file
 *   is still written: an owner may set up a skill before it arrives).
 *   @default no look-up
 * @returns 0 when written or printed; 2 under `--no-config`.
 * @throws {ConfigFileError} When the existing overrides.json is not valid
 *   (it is never overwritten then).
 *
 * Requires `--allow-read` and `--allow-write` on the configuration folder
 * (the trusted part holds them).
 */
export async function runOverrideCommand(
  request: OverrideRequest,
  location: ConfigLocation | null,
  io: CommandIo,
  options: {
    readonly servedNames?: () => Promise<ConfiguredSkillNames | null>;
  } = {},
): Promise<number> {
  if (location === null) {
    await io.writeErr("skillgate: --no-config is set, so there is no overrides.json to edit\n");
    return 2;
  }
  const path = location.overridesPath;
  const text = await readOwnerFile(path);
  const current = text === null ? {} : parseOverridesFile(path, text);
  if (request.changes.length === 0) {
    // Own entries only (here and below): "constructor" or "valueOf" is a skill name.
    const shown = request.name === null
      ? current
      : { [request.name]: ownEntry(current, request.name) ?? {} };
    await io.writeOut(`${jsonForTerminal(shown)}\n`);
    return 0;
  }
  const name = request.name!;
  const entry: Record<string, boolean> = { ...(ownEntry(current, name) ?? {}) };
  for (const [key, value] of request.changes) {
    // true is the skill's own setting: the key is removed rather than written.
    if (value) delete entry[key];
    else entry[key] = false;
  }
  const next: Record<string, SkillOverride> = { ...current, [name]: entry };
  const schema = text === null ? null : schemaOf(text);
  // A switch the owner sets here is the owner's from now on: no view may turn it back on.
  const byView = text === null ? {} : { ...parseSetByView(path, text) };
  const changed = new Set(request.changes.map(([key]) => key));
  const viewsEntry = ownEntry(byView, name);
  if (viewsEntry !== undefined) byView[name] = viewsEntry.filter((key) => !changed.has(key));
  await writeAtomically(path, overridesFileText(next as SkillOverrides, schema, byView));
  await io.writeOut(`${name}: ${describe(entry)} (${path})\n`);
  const served = await options.servedNames?.();
  if (served != null && !served.names.has(name)) {
    await io.writeErr(
      `skillgate: no skill named "${name}" is under the configured roots now ` +
        `(${served.roots.map((root) => JSON.stringify(root)).join(", ")}); the override is ` +
        "written and applies if one appears (names are exact: skillgate list shows them)\n",
    );
  }
  return 0;
}

/** The switch that sets `change` (`["enabled", false]` -> `--disable`). */
function flagOf(change: readonly [OverrideSwitch, boolean]): string {
  const found = Object.entries(OVERRIDE_FLAGS).find(([, [key, value]]) =>
    key === change[0] && value === change[1]
  );
  return found![0];
}

function schemaOf(text: string): string | null {
  try {
    const value = JSON.parse(text) as { $schema?: unknown };
    return typeof value.$schema === "string" ? value.$schema : null;
  } catch {
    return null;
  }
}

function describe(entry: Record<string, boolean>): string {
  const parts = [
    entry.enabled === false ? "disabled" : "enabled",
    entry.modelInvocable === false ? "hidden from the model" : "shown to the model",
    entry.userInvocable === false ? "no prompt" : "prompt",
  ];
  return parts.join(", ");
}
