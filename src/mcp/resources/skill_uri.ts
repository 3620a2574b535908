/**
 * `skill://` URIs: building the one canonical URI of a skill file, and
 * parsing a client's URI back into a skill name and a relative path. Pure: no
 * catalog, no file system. A parsed path has passed the path gate's string
 * check; whether it is served is decided later, against the catalog.
 *
 * @module
 */

import { checkPathString, quotePath } from "../../files/path_gate.ts";
import { isUsableDirectoryName } from "../../skills/names.ts";
import { MAX_URI_CHARS } from "../../caps.ts";

/** The scheme of skill file URIs. */
export const SKILL_URI_SCHEME = "skill";

/**
 * The `resources/templates/list` template of skill files (RFC 6570 level 2:
 * `{+path}` keeps `/` unencoded; a client that encodes it as `%2F` is served
 * too).
 */
export const SKILL_FILE_URI_TEMPLATE = "skill://{name}/{+path}";

/** Characters of a URI considered at most (far above any served URI); stated in `src/caps.ts`. */
export { MAX_URI_CHARS };

/** A URI that names a skill file. */
export interface ParsedSkillUri {
  readonly ok: true;
  /** The skill's name, percent-decoded. */
  readonly name: string;
  /** The relative path inside the skill, percent-decoded, `/`-separated. */
  readonly path: string;
}

/** A URI that cannot name a skill file, with a client-safe reason. */
export interface UnparsedSkillUri {
  readonly ok: false;
  /** Sentence case, no final period, e.g. `Path "../a" has a ".." segment`. */
  readonly reason: string;
}

/**
 * Builds the canonical URI of a skill file: `skill://<name>/<path>`, the name
 * and each path segment percent-encoded as `encodeURIComponent` does (so `/`
 * inside a segment, space, `?`, `#`, `%` and non-ASCII are escaped; letters,
 * digits and `-_.!~*'()` are kept).
 *
 * @param name The skill's name (a usable directory name).
 * @param path A relative POSIX path as discovery lists it, e.g. `SKILL.md`
 *   or `canvas-fonts/Lora-Regular.ttf`.
 * @returns The URI, e.g. `skill://theme-factory/themes/ocean%20depths.md`.
 * @throws {URIError} When `name` or `path` holds a lone surrogate (discovery
 *   never lists one).
 *
 * Source: SEP-2640 (`skill://<skill-path>/<file-path>`, `/` as separator);
 * RFC 3986 section 2.1 (percent-encoding).
 */
export function skillFileUri(name: string, path: string): string {
  const encodedPath = path.split("/").map(encodeURIComponent).join("/");
  return `${SKILL_URI_SCHEME}://${encodeURIComponent(name)}/${encodedPath}`;
}

/**
 * Parses a client's URI into a skill name and a relative path.
 *
 * Rules: at most {@linkcode MAX_URI_CHARS} characters; scheme `skill`
 * (case-insensitive) followed by `//`; no query (`?`) or fragment (`#`); a
 * name before the first `/` that decodes to a usable directory name; then a
 * path whose segments are percent-decoded one by one (malformed escapes or
 * invalid UTF-8 are refused). An encoded slash (`%2F`) decodes to a `/`
 * between segments, so it can never hide a segment: the decoded path must
 * pass the path gate's string check (no `..`, `.`, empty, hidden or
 * `node_modules` segment, no `%`, backslash or control character). Raw `..`
 * segments are refused, not resolved.
 *
 * @param uri The URI as the client sent it.
 * @returns `{ok: true, name, path}` or `{ok: false, reason}`.
 *
 * Source: SEP-2640 (skill URIs); RFC 3986 sections 3 and 2.1; the path rule
 * in `/work/shared/notes/anchors.md`.
 */
export function parseSkillUri(uri: string): ParsedSkillUri | UnparsedSkillUri {
  if (typeof uri !== "string" || uri.length === 0) return refuse("The URI is empty");
  if (uri.length > MAX_URI_CHARS) {
    return refuse(`The URI is longer than ${MAX_URI_CHARS} characters`);
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1];
  if (scheme === undefined || scheme.toLowerCase() !== SKILL_URI_SCHEME) {
    return refuse(`The scheme is not "${SKILL_URI_SCHEME}:"`);
  }
  const rest = uri.slice(scheme.length + 1);
  if (!rest.startsWith("//")) return refuse(`The URI does not start with "${SKILL_URI_SCHEME}://"`);
  if (rest.includes("?") || rest.includes("#")) return refuse("The URI has a query or fragment");
  const afterSlashes = rest.slice(2);
  const slash = afterSlashes.indexOf("/");
  if (slash < 0) {
    return refuse("The URI names no file; a skill's instructions are at skill://<name>/SKILL.md");
  }
  const name = decode(afterSlashes.slice(0, slash));
  if (name === null) return refuse("The skill name has malformed percent-encoding");
  if (!isUsableDirectoryName(name)) {
    return refuse(`The skill name ${quotePath(name)} is not usable`);
  }
  const segments = afterSlashes.slice(slash + 1).split("/").map(decode);
  if (segments.some((segment) => segment === null)) {
    return refuse("The file path has malformed percent-encoding");
  }
  const path = segments.join("/");
  const refusal = checkPathString(path);
  if (refusal !== null) return refuse(refusal);
  return { ok: true, name, path };
}

function decode(component: string): string | null {
  try {
    return decodeURIComponent(component);
  } catch {
    return null;
  }
}

function refuse(reason: string): UnparsedSkillUri {
  return { ok: false, reason };
}
