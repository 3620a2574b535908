/**
 * `resources/directory/read` answers from a catalog snapshot: the direct
 * children of a skill's root folder or of one of its subfolders, derived from
 * the skill's file listing (so exactly the files `resources/list` serves,
 * under the same rules; folders that hold no served file do not exist here).
 *
 * @module
 */

import { mediaTypeFor } from "../../files/media_type.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { findListedFile, lowerBound } from "../resources/served_file.ts";
import {
  catalogPrefixes,
  parseSkillUri,
  SKILL_URI_SCHEME,
  skillFileUri,
} from "../resources/skill_uri.ts";

/** The media type of a directory resource (SEP-2640, "Directory Resources"). */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/** One child of a directory, as a `Resource`. */
export interface DirectoryChild {
  readonly uri: string;
  /** The child's own name (last path segment). */
  readonly name: string;
  readonly mimeType: string;
  /** Bytes, for files. */
  readonly size?: number;
}

/** A directory URI resolved against a snapshot. */
export interface ResolvedDirectory {
  readonly skill: Skill;
  /** Relative folder path inside the skill; `""` for the skill's root. */
  readonly path: string;
}

/**
 * Resolves a directory URI: `skill://<name>` (the skill's root, no trailing
 * slash; `skill://<name>/` is accepted too) or `skill://<name>/<folder>` (one
 * trailing slash accepted too).
 *
 * @param catalog The snapshot.
 * @param uri The URI as the client sent it.
 * @returns The skill and folder, or a client-safe reason (sentence case, no
 *   final period) why it is not a directory this server serves.
 *
 * Source: SEP-2640, "Directory Resources" (directory URIs carry no trailing slash).
 */
export function resolveDirectory(
  catalog: Catalog,
  uri: string,
): ResolvedDirectory | { readonly reason: string } {
  if (typeof uri !== "string") return { reason: "The URI must be a string" };
  const prefixes = catalogPrefixes(catalog);
  let name: string;
  let path: string;
  // A skill's own folder: its SKILL.md URI minus the file (skill://NAME or skill://PREFIX/NAME).
  const asRoot = uri.toLowerCase().startsWith(`${SKILL_URI_SCHEME}://`)
    ? parseSkillUri(`${uri.replace(/\/$/, "")}/SKILL.md`, prefixes)
    : null;
  if (asRoot !== null && asRoot.ok && asRoot.path === "SKILL.md") {
    name = asRoot.name;
    path = "";
  } else {
    // One final slash is how folders are often written (`skill://NAME/scripts/`): dropped.
    const parsed = parseSkillUri(/[^/]\/$/.test(uri) ? uri.slice(0, -1) : uri, prefixes);
    if (!parsed.ok) {
      return { reason: `${quoteUri(uri)} is not a directory resource: ${parsed.reason}` };
    }
    name = parsed.name;
    path = parsed.path;
  }
  const skill = catalog.byName.get(name);
  if (skill === undefined) return { reason: `No skill is served at ${quoteUri(uri)}` };
  if (path === "") return { skill, path };
  if (findListedFile(skill, path) !== null) {
    return { reason: `${quoteUri(uri)} is a file, not a directory resource` };
  }
  const inside = skill.files[lowerBound(skill.files, `${path}/`, (file) => file.path)];
  if (inside === undefined || !inside.path.startsWith(`${path}/`)) {
    return { reason: `${quoteUri(uri)} does not exist` };
  }
  return { skill, path };
}

/**
 * Lists the direct children of a resolved directory, folders as
 * `inode/directory` and files with their media type and size, sorted by name
 * (code-unit order).
 *
 * @param directory A directory from {@linkcode resolveDirectory}.
 * @returns Every direct child, never recursive.
 *
 * Source: SEP-2640, "Reading Directories".
 */
export function directoryChildren(directory: ResolvedDirectory): DirectoryChild[] {
  const { skill, path } = directory;
  const prefix = path === "" ? "" : `${path}/`;
  const children: DirectoryChild[] = [];
  let lastFolder: string | null = null;
  for (let i = lowerBound(skill.files, prefix, (file) => file.path); i < skill.files.length; i++) {
    const file = skill.files[i];
    if (file === undefined || !file.path.startsWith(prefix)) break;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      children.push({
        uri: skillFileUri(skill.name, file.path),
        name: rest,
        mimeType: mediaTypeFor(file.path),
        size: file.size,
      });
      continue;
    }
    const folder = rest.slice(0, slash);
    if (folder === lastFolder) continue;
    lastFolder = folder;
    children.push({
      uri: skillFileUri(skill.name, `${prefix}${folder}`),
      name: folder,
      mimeType: DIRECTORY_MIME_TYPE,
    });
  }
  return children.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Quotes a client's URI for an error message, cut to 200 characters.
 *
 * @param uri The URI as the client sent it.
 * @returns The URI (or its first 200 characters and `...`) as a JSON string.
 */
export function quoteUri(uri: string): string {
  return JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}...` : uri);
}
