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
import { PREFIX_SEPARATOR } from "../../skills/discover.ts";
import type { Catalog } from "../../skills/skill.ts";
import { MAX_URI_CHARS } from "../../caps.ts";

/** The scheme of skill file URIs. */
export const SKILL_URI_SCHEME = "skill";

/**
 * The `resources/templates/list` template of skill files (RFC 6570 level 2:
 * `{+path}` keeps `/` unencoded; a client that encodes it as `%2F` is served
 * too).
 */
export const SKILL_FILE_URI_TEMPLATE = "skill://{name}/{+path}";

/**
 * The resource template for a file of a prefixed skill (a prefixed root's or
 * a remote source's, served as `PREFIX__NAME`): its canonical URI is
 * `skill://PREFIX/NAME/<path>`, which the one-segment `{name}` above cannot
 * express (review r14, H7). Completion offers the catalog's prefixes, then
 * the names under the prefix given, then that skill's paths.
 */
export const SKILL_PREFIXED_FILE_URI_TEMPLATE = "skill://{prefix}/{name}/{+path}";

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
 * Builds the canonical URI of a skill file: `skill://<name>/<path>`, or for a
 * served name `PREFIX__NAME` (a prefixed root or a remote source; no folder
 * name holds `__`) `skill://PREFIX/NAME/<path>`; the name parts
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
  const separator = name.indexOf(PREFIX_SEPARATOR);
  const skillPath = separator < 0
    ? encodeURIComponent(name)
    : `${encodeURIComponent(name.slice(0, separator))}/${
      encodeURIComponent(name.slice(separator + PREFIX_SEPARATOR.length))
    }`;
  return `${SKILL_URI_SCHEME}://${skillPath}/${encodedPath}`;
}

const PREFIXES = new WeakMap<Catalog, ReadonlySet<string>>();

/**
 * The prefixes a catalog serves under (its roots' `prefix`), for
 * {@linkcode parseSkillUri}. Cached per snapshot.
 *
 * @param catalog The snapshot.
 * @returns The set of prefixes (empty when no root has one).
 */
export function catalogPrefixes(catalog: Catalog): ReadonlySet<string> {
  let prefixes = PREFIXES.get(catalog);
  if (prefixes === undefined) {
    prefixes = new Set(catalog.roots.flatMap((root) => root.prefix ?? []));
    PREFIXES.set(catalog, prefixes);
  }
  return prefixes;
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
 * Prefixes: when the first segment is one of `prefixes`, the second is the
 * folder name and the served name is `PREFIX__NAME`
 * (`skill://acme-skills/pdf/SKILL.md` names `acme-skills__pdf`). No local
 * skill is served under a name equal to a prefix (the catalog refuses it),
 * so a first segment that is a prefix never means a local skill's nested
 * file. A first segment holding `__` is refused: that is a served name, not
 * a URI segment.
 *
 * @param uri The URI as the client sent it.
 * @param prefixes The catalog's prefixes ({@linkcode catalogPrefixes}). @default none
 * @returns `{ok: true, name, path}` (name: the served name) or `{ok: false, reason}`.
 *
 * Source: SEP-2640 (skill URIs); RFC 3986 sections 3 and 2.1; the path rule
 * in `/work/shared/notes/anchors.md`.
 */
export function parseSkillUri(
  uri: string,
  prefixes: ReadonlySet<string> = new Set(),
): ParsedSkillUri | UnparsedSkillUri {
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
  if (!isUsableDirectoryName(name) || name.includes(PREFIX_SEPARATOR)) {
    return refuse(`The skill name ${quotePath(name)} is not usable`);
  }
  let tail = afterSlashes.slice(slash + 1);
  let served = name;
  if (prefixes.has(name)) {
    const next = tail.indexOf("/");
    const folder = next < 0 ? null : decode(tail.slice(0, next));
    if (folder === null || !isUsableDirectoryName(folder) || folder.includes(PREFIX_SEPARATOR)) {
      return refuse(
        `The URI names no skill under prefix ${quotePath(name)}; use skill://PREFIX/NAME/SKILL.md`,
      );
    }
    served = `${name}${PREFIX_SEPARATOR}${folder}`;
    tail = tail.slice(next + 1);
  }
  const segments = tail.split("/").map(decode);
  if (segments.some((segment) => segment === null)) {
    return refuse("The file path has malformed percent-encoding");
  }
  const path = segments.join("/");
  const refusal = checkPathString(path);
  if (refusal !== null) return refuse(refusal);
  return { ok: true, name: served, path };
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
