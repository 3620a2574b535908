/**
 * `overrides.json`, beside the configuration file: per served skill name,
 * `enabled`, `modelInvocable` and `userInvocable` (booleans; `false`
 * narrows, `true` is the skill's own setting). Anything else is an error,
 * located by line and column. Read by the trusted part only; written only by
 * `skillgate override` (atomically), never by the worker.
 *
 * ```json
 * { "skills": { "pdf": { "enabled": false }, "deploy": { "modelInvocable": false } } }
 * ```
 *
 * @module
 */

import { isUsableDirectoryName } from "../../skills/names.ts";
import {
  OVERRIDE_SWITCHES,
  type OverrideSwitch,
  ownEntry,
  type SkillOverride,
  type SkillOverrides,
} from "../../skills/overrides.ts";
import { jsonTypeName, parseJsonDocument, propertiesOf } from "./json_document.ts";

/**
 * Whether a name may key an entry of `overrides.json` (the one rule of the
 * file, `skillgate override` and a settings view's write): a name a skill
 * folder can have, and never `__proto__`, which in a plain object names its
 * prototype instead of an entry (an owner's entry under it was silently lost,
 * and no skill is served by that name: `__` is reserved for PREFIX__NAME).
 *
 * @param name A skill name from the file, the command line or a view.
 * @returns True when it may be an entry's key.
 */
export function isOverrideName(name: string): boolean {
  return name !== "__proto__" && isUsableDirectoryName(name);
}

/**
 * Checks an overrides file's text.
 *
 * @param path The file's path, for messages.
 * @param text Its content.
 * @returns The overrides by skill name (only the switches that are set).
 * @throws {ConfigFileError} On invalid JSON, a duplicate or unknown key, a
 *   name that cannot be a skill's, or a switch that is not a boolean; each
 *   located by line and column.
 */
export function parseOverridesFile(path: string, text: string): SkillOverrides {
  const document = parseJsonDocument(path, text);
  const overrides: Record<string, SkillOverride> = {};
  for (const top of propertiesOf(document.root)) {
    if (top.key === "$schema") {
      if (top.value.type !== "string") {
        throw document.errorAt(top.value.offset, `"$schema" must be a string`, "$schema");
      }
      continue;
    }
    if (top.key === SET_BY_VIEW_KEY) continue; // checked by parseSetByView
    if (top.key !== "skills") {
      throw document.errorAt(
        top.keyOffset,
        `unknown key "${top.key}"; overrides.json holds "skills": { "NAME": { ... } }`,
        top.key,
      );
    }
    if (top.value.type !== "object") {
      throw document.errorAt(
        top.value.offset,
        `"skills" must be an object of skill names`,
        "skills",
      );
    }
    for (const skill of propertiesOf(top.value)) {
      const key = `skills.${skill.key}`;
      if (!isOverrideName(skill.key)) {
        throw document.errorAt(skill.keyOffset, `"${skill.key}" cannot be a skill's name`, key);
      }
      if (skill.value.type !== "object") {
        throw document.errorAt(
          skill.value.offset,
          `"${key}" must be an object such as { "enabled": false }, got ${
            jsonTypeName(skill.value)
          }`,
          key,
        );
      }
      const entry: Record<string, boolean> = {};
      for (const setting of propertiesOf(skill.value)) {
        const settingKey = `${key}.${setting.key}`;
        if (!(OVERRIDE_SWITCHES as readonly string[]).includes(setting.key)) {
          throw document.errorAt(
            setting.keyOffset,
            `unknown key "${setting.key}"; a skill's overrides are ${OVERRIDE_SWITCHES.join(", ")}`,
            settingKey,
          );
        }
        if (setting.value.type !== "boolean") {
          throw document.errorAt(
            setting.value.offset,
            `"${settingKey}" must be true or false, got ${jsonTypeName(setting.value)}`,
            settingKey,
          );
        }
        entry[setting.key] = setting.value.value;
      }
      overrides[skill.key] = entry;
    }
  }
  parseSetByView(path, text);
  return overrides;
}

/** The top-level key of the switches a settings view turned off. */
export const SET_BY_VIEW_KEY = "setByView";

/** The switches a settings view turned off, by served skill name. */
export type SetByView = Readonly<Record<string, readonly OverrideSwitch[]>>;

/**
 * Reads `setByView` from an overrides file's text: which switches a settings
 * view turned off (and so may turn back on).
 *
 * @param path The file's path, for messages.
 * @param text Its content.
 * @returns The switches by skill name (absent key: none).
 * @throws {ConfigFileError} On invalid JSON, a name that cannot be a skill's,
 *   or a value that is not a list of switch names; located by line and column.
 */
export function parseSetByView(path: string, text: string): SetByView {
  const document = parseJsonDocument(path, text);
  const found: Record<string, OverrideSwitch[]> = {};
  for (const top of propertiesOf(document.root)) {
    if (top.key !== SET_BY_VIEW_KEY) continue;
    if (top.value.type !== "object") {
      throw document.errorAt(
        top.value.offset,
        `"${SET_BY_VIEW_KEY}" must be an object of skill names`,
        SET_BY_VIEW_KEY,
      );
    }
    for (const skill of propertiesOf(top.value)) {
      const key = `${SET_BY_VIEW_KEY}.${skill.key}`;
      if (!isOverrideName(skill.key)) {
        throw document.errorAt(skill.keyOffset, `"${skill.key}" cannot be a skill's name`, key);
      }
      const items = skill.value.type === "array" ? skill.value.children ?? [] : null;
      const switches = items?.map((item) => item.value);
      if (
        switches === undefined ||
        !switches.every((name) => (OVERRIDE_SWITCHES as readonly unknown[]).includes(name))
      ) {
        throw document.errorAt(
          skill.value.offset,
          `"${key}" must be a list of ${OVERRIDE_SWITCHES.join(", ")}`,
          key,
        );
      }
      found[skill.key] = [...new Set(switches as OverrideSwitch[])];
    }
  }
  return found;
}

/**
 * The text the trusted part writes: sorted names, two-space JSON, a final newline.
 *
 * @param overrides The overrides (entries without a switch are dropped).
 * @param schema The `$schema` value to keep, or null.
 * @param setByView The switches a view turned off; a switch not off in
 *   `overrides` is dropped, and the key is left out when none remain. @default none
 * @returns The file's content.
 */
export function overridesFileText(
  overrides: SkillOverrides,
  schema: string | null,
  setByView: SetByView = {},
): string {
  const skills: Record<string, SkillOverride> = {};
  for (const name of Object.keys(overrides).sort()) {
    const entry = overrides[name]!;
    const kept = Object.fromEntries(
      OVERRIDE_SWITCHES.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]]),
    );
    if (Object.keys(kept).length > 0) skills[name] = kept;
  }
  const byView: Record<string, OverrideSwitch[]> = {};
  for (const name of Object.keys(setByView).sort()) {
    const kept = OVERRIDE_SWITCHES.filter((key) =>
      setByView[name]!.includes(key) && ownEntry(skills, name)?.[key] === false
    );
    if (kept.length > 0) byView[name] = kept;
  }
  const ledger = Object.keys(byView).length === 0 ? {} : { [SET_BY_VIEW_KEY]: byView };
  return `${
    JSON.stringify({ ...(schema === null ? {} : { $schema: schema }), skills, ...ledger }, null, 2)
  }\n`;
}
