/**
 * A settings view's write to `overrides.json`, decided and done by the
 * trusted part. The worker only asks (a `override-write` message); it holds
 * no write permission anywhere near the owner's files. The server cannot tell
 * a view's call from any other client's (the "app-only" visibility of a tool
 * is a hint to the host, not access control), so the rules hold whoever asks:
 *
 * - turning a switch off always narrows: allowed, and recorded in
 *   `setByView` unless the owner had already turned it off;
 * - turning a switch back on is allowed only for a switch in `setByView` (a
 *   view turned it off); never for one the owner set by hand or with
 *   `skillgate override` (that command removes the switches it sets from
 *   `setByView`). A skill's own frontmatter is never touched: an override
 *   only narrows what the frontmatter allows, so removing one cannot widen
 *   past it;
 * - the file is written whole and renamed over the old one
 *   (`write_atomically.ts`), between two reviews of the owner's files, and
 *   the result is put in force at once (`OwnerFilesWatch.adopt`); the rename
 *   happens only while the file still holds what the decision read (an
 *   owner's save in between is read and decided on again, never lost).
 *
 * @module
 */

import {
  OVERRIDE_SWITCHES,
  type OverrideSwitch,
  ownEntry,
  type SkillOverride,
  type SkillOverrides,
} from "../../skills/overrides.ts";
import { ConfigFileError } from "./json_document.ts";
import { type ConfigLocation, readOwnerFile } from "./load_config.ts";
import { commonSetByView, keptSetByView } from "./live_config.ts";
import {
  isOverrideName,
  overridesFileText,
  parseOverridesFile,
  parseSetByView,
  type SetByView,
} from "./overrides_file.ts";
import type { OverridesInForce } from "./watch_owner_files.ts";
import { writeAtomically } from "./write_atomically.ts";
import type { DeclarationBase } from "../../skills/declared_env.ts";
import { skillFolderOf } from "../../skills/skill_folder_claim.ts";

/** The most skill names `overrides.json` may hold after a view's write. */
export const MAX_VIEW_OVERRIDE_NAMES = 10_000;

/**
 * Times a view's write reads, decides and writes when `overrides.json`
 * changes under it (the owner saved it meanwhile) before it gives up.
 */
export const MAX_VIEW_WRITE_ATTEMPTS = 3;

/** What a view chose: one switch of one served skill name. */
export interface ViewOverrideChoice {
  readonly name: string;
  readonly switch: OverrideSwitch;
  /** false turns the switch off (narrows); true turns it back on. */
  readonly value: boolean;
}

/** What the worker asks: a view's choice, and the skill's folder as its catalog has it. */
export interface ViewOverrideRequest extends ViewOverrideChoice {
  /**
   * The skill's real folder in the worker's catalog. Not trusted: the
   * trusted part writes a name overrides.json does not hold yet only when
   * this is a skill folder of that name under the roots (`skillFolderOf`)
   * holding a SKILL.md (review r14). At most 4,096 characters.
   */
  readonly dir: string;
}

/** Where the skills of this server may lie (the roots, the sources cache), each with its prefix. */
export type SkillBases = readonly DeclarationBase[];

/** Why a write is refused (stable codes, shown to the client). */
export type ViewOverrideRefusal =
  | "OVERRIDE_INVALID"
  | "OVERRIDE_OWNED"
  | "OVERRIDE_LIMIT"
  | "SETTINGS_UNAVAILABLE";

/** The trusted part's answer to a view's write. */
export type ViewOverrideAnswer =
  | { readonly ok: true; readonly changed: boolean }
  | {
    readonly ok: false;
    readonly code: ViewOverrideRefusal;
    readonly message: string;
    readonly hint: string;
  };

/** The outcome of {@linkcode decideViewOverride}. */
export type ViewOverrideDecision =
  | {
    readonly ok: true;
    /** The file's overrides after the write. */
    readonly file: SkillOverrides;
    /** What is in force after the write. */
    readonly inForce: OverridesInForce;
    readonly changed: boolean;
  }
  | Extract<ViewOverrideAnswer, { ok: false }>;

/**
 * Checks an untrusted request's shape (it crossed from the worker).
 *
 * @param value Whatever the worker sent.
 * @returns The request, or null when it is not one.
 */
export function readViewOverrideRequest(value: unknown): ViewOverrideRequest | null {
  if (typeof value !== "object" || value === null) return null;
  const { name, switch: key, value: on, dir } = value as Record<string, unknown>;
  if (typeof name !== "string" || name.length > 255 || !isOverrideName(name)) return null;
  if (!(OVERRIDE_SWITCHES as readonly unknown[]).includes(key)) return null;
  if (typeof on !== "boolean") return null;
  if (typeof dir !== "string" || dir.length > MAX_SKILL_DIR_CHARS || !dir.startsWith("/")) {
    return null;
  }
  return { name, switch: key as OverrideSwitch, value: on, dir };
}

/** The longest skill folder path a request may carry, in UTF-16 code units. */
const MAX_SKILL_DIR_CHARS = 4_096;

/**
 * Whether a view may name this skill in a write: overrides.json names it
 * already (its own entries or `setByView`: a skill gone since may still be
 * turned back on, or off again), or the folder the worker gave is a skill
 * folder of that name under the roots (`skillFolderOf`) holding a SKILL.md
 * (or skill.md) that is a regular file. Nothing is read but real paths and
 * one `lstat` (review r14: any valid-looking name was accepted, up to the
 * name limit, filling the owner's file with names no skill has).
 */
async function isNameable(
  request: ViewOverrideRequest,
  file: SkillOverrides,
  setByView: SetByView,
  bases: SkillBases,
): Promise<boolean> {
  if (
    ownEntry(file, request.name) !== undefined || ownEntry(setByView, request.name) !== undefined
  ) {
    return true;
  }
  const realDir = await skillFolderOf(request.name, request.dir, bases);
  if (realDir === null) return false;
  for (const name of ["SKILL.md", "skill.md"]) {
    try {
      if ((await Deno.lstat(`${realDir}/${name}`)).isFile) return true;
    } catch {
      // not this one
    }
  }
  return false;
}

/**
 * Decides a view's write. Pure.
 *
 * @param request The checked request.
 * @param file The overrides as the file says now.
 * @param fileSetByView The file's `setByView`.
 * @param inForce What is in force now (the file narrowed by every earlier edit).
 *   A switch is the view's only while both the file's and the in-force
 *   `setByView` name it: the in-force one is carried forward from review to
 *   review and drops an entry once the owner turns its switch on by hand (a
 *   stale entry the file still holds is not revived, review r14 H2); the
 *   file's drops it as soon as `skillgate override` takes it out, before the
 *   next review.
 * @returns The file's and the in-force overrides after the write, or the refusal.
 *
 * Source: issue 20 ("a write may only narrow, and may re-enable only what a
 * view disabled itself").
 */
export function decideViewOverride(
  request: ViewOverrideChoice,
  file: SkillOverrides,
  fileSetByView: SetByView,
  inForce: OverridesInForce,
): ViewOverrideDecision {
  const viewsSetByView = commonSetByView(fileSetByView, inForce.setByView);
  const { name, switch: key } = request;
  // Own entries only: a skill may be named "constructor" or "toString".
  const fileEntry = ownEntry(file, name);
  const forceEntry = ownEntry(inForce.overrides, name);
  const viewsEntry = ownEntry(viewsSetByView, name);
  const isOffInFile = fileEntry?.[key] === false;
  const isOffInForce = forceEntry?.[key] === false;
  const isViews = viewsEntry?.includes(key) === true;
  if (!request.value) {
    if (isOffInFile && isOffInForce) {
      return { ok: true, file, inForce, changed: false };
    }
    // Own names only: "constructor" is `in` every object, and must count like any name.
    if (fileEntry === undefined && Object.keys(file).length >= MAX_VIEW_OVERRIDE_NAMES) {
      return {
        ok: false,
        code: "OVERRIDE_LIMIT",
        message: `overrides.json already names ${MAX_VIEW_OVERRIDE_NAMES} skills`,
        hint: "Ask the server's owner to tidy overrides.json, or use skillgate override",
      };
    }
    const nextFile = { ...file, [name]: { ...fileEntry, [key]: false } };
    // Recorded as the view's only when nothing had turned it off already: not
    // the file, and not what is in force (an owner's off that the owner took
    // out of the file by hand stays in force until a restart; claiming it
    // here would let a view turn it back on at once).
    const nextSetByView = isOffInFile || isOffInForce ? viewsSetByView : {
      ...viewsSetByView,
      [name]: [...(viewsEntry ?? []), key],
    };
    const overrides = { ...inForce.overrides, [name]: { ...forceEntry, [key]: false } };
    return {
      ok: true,
      file: nextFile,
      inForce: { overrides, setByView: keptSetByView(nextSetByView, nextFile) },
      changed: true,
    };
  }
  if (!isOffInFile && !isOffInForce) return { ok: true, file, inForce, changed: false };
  if (!isViews || !isOffInFile) {
    return {
      ok: false,
      code: "OVERRIDE_OWNED",
      message: `The owner turned "${key}" off for "${name}"; a view may only turn back on what ` +
        "a view turned off",
      hint: `Only the owner can change it: skillgate override ${name} ${onSwitch(key)}`,
    };
  }
  const nextFile = { ...file, [name]: without(fileEntry ?? {}, key) };
  const nextSetByView = {
    ...viewsSetByView,
    [name]: (viewsEntry ?? []).filter((item) => item !== key),
  };
  const overrides = { ...inForce.overrides, [name]: without(forceEntry ?? {}, key) };
  return {
    ok: true,
    file: nextFile,
    inForce: { overrides, setByView: keptSetByView(nextSetByView, nextFile) },
    changed: true,
  };
}

/** Where the writer reads what is in force and puts the result. */
export interface OverridesHolder {
  inForce(): OverridesInForce;
  adopt(next: OverridesInForce): void;
  exclusive<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * Creates the trusted part's writer of a view's requests.
 *
 * @param location Where `overrides.json` lives, or null under `--no-config`
 *   (every write refused).
 * @param holder The owner-file watch (null under `--static`: every write
 *   refused, the catalog stays as it started).
 * @param bases Where skill folders may lie (the roots, the sources cache;
 *   the declaration reader's bases): a name overrides.json does not hold yet
 *   is written only for a skill folder of that name there (`OVERRIDE_INVALID`
 *   otherwise, nothing written).
 * @returns `write(request)`: reads the file, decides, writes atomically and
 *   puts the result in force; never rejects (a failure is a refusal).
 *
 * Requires `--allow-read` and `--allow-write` on the configuration folder,
 * `--allow-read` on the roots (realpath, one `lstat`; the trusted part holds
 * them; the worker holds neither write).
 */
export function createViewOverrideWriter(
  location: ConfigLocation | null,
  holder: OverridesHolder | null,
  bases: SkillBases,
): (request: unknown) => Promise<ViewOverrideAnswer> {
  return async (raw) => {
    const request = readViewOverrideRequest(raw);
    if (request === null) {
      return refusal(
        "OVERRIDE_INVALID",
        "The request is not a skill name, a switch, a value and the skill's folder",
      );
    }
    if (location === null || holder === null) {
      return refusal(
        "SETTINGS_UNAVAILABLE",
        location === null
          ? "skillgate runs with --no-config, so there is no overrides.json to write"
          : "skillgate does not follow its configuration files while serving (--static, or a " +
            "folder it cannot watch), so the catalog stays as it started",
        `Use skillgate override ${request.name} ${
          request.value ? onSwitch(request.switch) : offSwitch(request.switch)
        } and restart`,
      );
    }
    return await holder.exclusive(async () => {
      const path = location.overridesPath;
      // An owner's save between our read and our rename would be overwritten (and an
      // owner's "off" in it lost): the rename happens only while the file still holds
      // what was read; otherwise read and decide again.
      for (let attempt = 0; attempt < MAX_VIEW_WRITE_ATTEMPTS; attempt++) {
        let text: string | null;
        let file: SkillOverrides;
        let setByView: SetByView;
        try {
          text = await readOwnerFile(path);
          file = text === null ? {} : parseOverridesFile(path, text);
          setByView = text === null ? {} : parseSetByView(path, text);
        } catch (error) {
          if (!(error instanceof ConfigFileError)) throw error;
          return refusal(
            "SETTINGS_UNAVAILABLE",
            "overrides.json is not valid, so it is not written",
            "Ask the server's owner to fix overrides.json (skillgate override prints why)",
          );
        }
        if (!(await isNameable(request, file, setByView, bases))) {
          return refusal(
            "OVERRIDE_INVALID",
            `No skill named "${request.name}" is served here, and overrides.json does not name ` +
              "it; nothing was written",
            "Open the settings view again (skill_settings) for the names served",
          );
        }
        const decision = decideViewOverride(request, file, setByView, holder.inForce());
        if (!decision.ok) return decision;
        if (!decision.changed) return { ok: true, changed: false } as const;
        const read = text;
        const isWritten = await writeAtomically(
          path,
          overridesFileText(decision.file, schemaOf(text), decision.inForce.setByView),
          {
            isStillCurrent: async () => (await readOwnerFile(path).catch(() => undefined)) === read,
          },
        );
        if (!isWritten) continue;
        holder.adopt(decision.inForce);
        return { ok: true, changed: true } as const;
      }
      return refusal(
        "SETTINGS_UNAVAILABLE",
        "overrides.json kept changing while skillgate wrote it, so nothing was written",
        "Open the settings view again and retry once the file is saved",
      );
    }).catch(() =>
      refusal(
        "SETTINGS_UNAVAILABLE",
        "overrides.json could not be written",
        "Ask the server's owner to check the configuration folder",
      )
    );
  };
}

/**
 * Drops from `overrides.json` the `setByView` entries that are no longer a
 * view's (the owner turned the switch on by hand, so the entry is stale): a
 * restart must not read them as the view's again (review r14, H2). Writes
 * only when the file names such an entry, atomically and only while the file
 * still holds `text`; the `skills` block is written back as parsed (the
 * trusted part's usual layout, as a view's write does).
 *
 * @param path `overrides.json`.
 * @param text Its text as just read (null: no file, nothing to do).
 * @param kept The `setByView` in force after the review.
 * @returns True when the file was rewritten.
 *
 * Requires `--allow-read` and `--allow-write` on the configuration folder
 * (the trusted part holds them).
 */
export async function dropStaleSetByView(
  path: string,
  text: string | null,
  kept: SetByView,
): Promise<boolean> {
  if (text === null) return false;
  let file: SkillOverrides;
  let fromFile: SetByView;
  try {
    file = parseOverridesFile(path, text);
    fromFile = parseSetByView(path, text);
  } catch {
    return false;
  }
  const isStale = Object.entries(fromFile).some(([name, switches]) =>
    switches.some((key) => !(ownEntry(kept, name)?.includes(key) ?? false))
  );
  if (!isStale) return false;
  return await writeAtomically(path, overridesFileText(file, schemaOf(text), kept), {
    isStillCurrent: async () => (await readOwnerFile(path).catch(() => undefined)) === text,
  });
}

function refusal(
  code: ViewOverrideRefusal,
  message: string,
  hint = "Check the request against skill_settings and try again",
): ViewOverrideAnswer {
  return { ok: false, code, message, hint };
}

function without(entry: SkillOverride, key: OverrideSwitch): Record<string, boolean> {
  const copy: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(entry) as [string, boolean | undefined][]) {
    if (name !== key && value !== undefined) copy[name] = value;
  }
  return copy;
}

function onSwitch(key: OverrideSwitch): string {
  return { enabled: "--enable", modelInvocable: "--show-to-model", userInvocable: "--prompt" }[key];
}

function offSwitch(key: OverrideSwitch): string {
  return {
    enabled: "--disable",
    modelInvocable: "--hide-from-model",
    userInvocable: "--no-prompt",
  }[key];
}

function schemaOf(text: string | null): string | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { $schema?: unknown };
    return typeof value.$schema === "string" ? value.$schema : null;
  } catch {
    return null;
  }
}
