/**
 * The file gate: the only place that turns an untrusted relative path into a
 * readable file. First the string is checked on its own (nothing is
 * normalised: the path the client sent passes as-is or is refused), then the
 * target is realpath'd and must lie inside the skill's real folder at a
 * separator boundary, and finally lstat must show a regular file. The result
 * is a {@linkcode ResolvedFile} that only this module can issue.
 *
 * Refusal messages are client-safe: they quote only the relative path the
 * client sent, never a host path. The `cause` of a refusal may hold host paths
 * and is for server logs only.
 *
 * @module
 */

import { isAbsolute, join, relative, sep } from "node:path";
import { MAX_PATH_CHARS } from "../caps.ts";

/** Why a path was refused. */
export type PathRefusedCode = "bad-path" | "outside-skill" | "not-found" | "not-a-file";

/** A relative path the file gate will not serve. The message is client-safe. */
export class PathRefusedError extends Error {
  /** The stable reason, for callers and clients that branch on it. */
  readonly code: PathRefusedCode;

  /**
   * @param code The reason.
   * @param message Sentence-case message quoting only the client's relative path.
   * @param options `cause` for server logs (may hold host paths).
   */
  constructor(code: PathRefusedCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PathRefusedError";
    this.code = code;
  }
}

declare const resolvedBrand: unique symbol;

/** A file the gate has checked; only {@linkcode resolveSkillFile} issues one. */
export interface ResolvedFile {
  readonly [resolvedBrand]: true;
  /** The relative path as the client sent it. */
  readonly relPath: string;
  /** The real (symlink-free, absolute) host path; never show it to a client. */
  readonly realPath: string;
  /** Size in bytes at resolve time. */
  readonly size: number;
  /** Modification time in ms since the epoch, or null when unknown. */
  readonly mtimeMs: number | null;
  /** Device id at resolve time; compared again when the file is opened. */
  readonly dev: number;
  /** Inode number at resolve time (null where the platform has none). */
  readonly ino: number | null;
  /** The skill's real folder the file was resolved in; never show it to a client. */
  readonly skillRealDir: string;
  /** Device and inode of `skillRealDir` at resolve time. */
  readonly skillDev: number;
  readonly skillIno: number | null;
  /** Segments of the real path below `skillRealDir` (no symlink among them at resolve time). */
  readonly realSegments: readonly string[];
}

const issued = new WeakSet<object>();

/**
 * Characters refused anywhere in a path: C0/C1 controls and DEL, line and
 * paragraph separators, and bidirectional formatting marks (they make a path
 * read differently from what it is, e.g. in a confirmation preview).
 */
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL_ALL = new RegExp(CONTROL.source, "gu");
const DRIVE_PREFIX = /^[A-Za-z]:/;
const BLANK = /^\s+$/u;

/**
 * Checks a client-supplied relative path as a string, touching no file.
 *
 * Rules: a non-empty string of at most {@linkcode MAX_PATH_CHARS} UTF-16 code
 * units, well-formed (no lone surrogates, which the OS layer would silently
 * replace); no NUL, control or bidi characters; no backslash; no `%` (no
 * percent-encoding is decoded or accepted); not absolute and no Windows drive
 * prefix (`C:`); split on `/`, no segment that is empty (so no `//` and no
 * trailing `/`), `.`, `..`, blank, hidden (starting with `.`) or
 * `node_modules`. Look-alike characters (U+2024, U+FF0E, U+2215, ...) are
 * ordinary characters and pass.
 *
 * @param path The relative path as the client sent it.
 * @returns `null` when the path passes, else a client-safe refusal message.
 *
 * Source: the path rule in `/work/shared/notes/anchors.md`; hidden files and
 * `node_modules` are never served, as in discovery.
 */
export function checkPathString(path: string): string | null {
  if (typeof path !== "string") return "Path must be a string";
  if (path.length === 0) return "Path is empty";
  if (path.length > MAX_PATH_CHARS) {
    return `Path is longer than ${MAX_PATH_CHARS} characters (got ${path.length})`;
  }
  const quoted = quotePath(path);
  if (!path.isWellFormed()) return `Path ${quoted} contains a lone surrogate`;
  if (path.includes("\0")) return `Path ${quoted} contains a NUL character`;
  if (CONTROL.test(path)) return `Path ${quoted} contains a control character`;
  if (path.includes("\\")) return `Path ${quoted} contains a backslash; use "/"`;
  if (path.includes("%")) return `Path ${quoted} contains "%"; percent-encoding is not accepted`;
  if (path.startsWith("/")) return `Path ${quoted} is absolute; send a path relative to the skill`;
  if (DRIVE_PREFIX.test(path)) return `Path ${quoted} starts with a drive prefix`;
  for (const segment of path.split("/")) {
    const refusal = checkSegment(segment);
    if (refusal !== null) return `Path ${quoted} ${refusal}`;
  }
  return null;
}

function checkSegment(segment: string): string | null {
  if (segment === "") return "has an empty segment";
  if (segment === "." || segment === "..") return `has a "${segment}" segment`;
  if (BLANK.test(segment)) return "has a blank segment";
  if (segment.startsWith(".")) return `names a hidden entry "${segment}"`;
  if (segment.toLowerCase() === "node_modules") return `goes through "${segment}"`;
  return null;
}

/**
 * Resolves a client-supplied relative path to a regular file inside a skill.
 *
 * @param skillRealDir The skill folder's real path: absolute and already
 *   realpath'd (as `Skill.realDir`). A non-real path fails closed: every file
 *   is then refused as outside the skill.
 * @param relPath The relative path as the client sent it; see
 *   {@linkcode checkPathString}.
 * @returns A frozen {@linkcode ResolvedFile} with the real path, size, mtime,
 *   dev and inode at resolve time.
 * @throws {PathRefusedError} `bad-path` when the string check fails or the
 *   real path, relative to the skill, would itself fail it (a symlink to a
 *   hidden file); `not-found` when realpath fails (missing, a symlink loop,
 *   unreadable); `outside-skill` when the real path is not strictly inside
 *   `skillRealDir`; `not-a-file` when lstat of the real path is not a regular
 *   file (folder, FIFO, socket, device). No file is ever opened here.
 * @throws {TypeError} When `skillRealDir` is not absolute (a programmer error).
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: the path rule in `/work/shared/notes/anchors.md` (string first, then
 * realpath with separator-bounded containment, then lstat).
 */
export async function resolveSkillFile(
  skillRealDir: string,
  relPath: string,
): Promise<ResolvedFile> {
  if (!isAbsolute(skillRealDir)) throw new TypeError("Skill folder must be an absolute real path");
  const refusal = checkPathString(relPath);
  if (refusal !== null) throw new PathRefusedError("bad-path", refusal);
  const quoted = quotePath(relPath);

  let realPath: string;
  try {
    realPath = await Deno.realPath(join(skillRealDir, relPath));
  } catch (error) {
    throw new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
  }
  if (!isStrictlyInside(skillRealDir, realPath)) {
    throw new PathRefusedError("outside-skill", `Path ${quoted} leads outside the skill`);
  }
  const realRel = relative(skillRealDir, realPath).split(sep).join("/");
  if (checkPathString(realRel) !== null) {
    throw new PathRefusedError("bad-path", `Path ${quoted} leads to a file that is not served`);
  }

  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(realPath);
  } catch (error) {
    throw new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
  }
  if (!info.isFile) {
    throw new PathRefusedError("not-a-file", `Path ${quoted} is not a regular file`);
  }

  let skillInfo: Deno.FileInfo;
  try {
    skillInfo = await Deno.lstat(skillRealDir);
  } catch (error) {
    throw new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
  }
  if (!skillInfo.isDirectory) {
    throw new PathRefusedError("not-found", `File ${quoted} does not exist`);
  }

  const file = Object.freeze({
    relPath,
    realPath,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    dev: info.dev,
    ino: info.ino,
    skillRealDir,
    skillDev: skillInfo.dev,
    skillIno: skillInfo.ino,
    realSegments: Object.freeze(realRel.split("/")),
  }) as ResolvedFile;
  issued.add(file);
  return file;
}

/**
 * Tells whether a value is a {@linkcode ResolvedFile} issued by
 * {@linkcode resolveSkillFile} (not a look-alike object).
 *
 * @param value Anything.
 * @returns `true` only for objects this module issued.
 */
export function isResolvedFile(value: unknown): value is ResolvedFile {
  return typeof value === "object" && value !== null && issued.has(value);
}

/**
 * Quotes a client path for a message: JSON string syntax, with every control,
 * separator and bidi character escaped as `\uXXXX` so a message cannot
 * carry one.
 *
 * @param path The client's relative path.
 * @returns The quoted path, e.g. `"a\u0000b"` for `a`, NUL, `b`.
 */
export function quotePath(path: string): string {
  return JSON.stringify(path).replace(
    CONTROL_ALL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Whether `child` is below `dir` at a separator boundary (`dir` itself is not). */
function isStrictlyInside(dir: string, child: string): boolean {
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return child.length > prefix.length && child.startsWith(prefix);
}

function notFoundMessage(quoted: string, error: unknown): string {
  if (error instanceof Deno.errors.FilesystemLoop) return `Path ${quoted} runs into a symlink loop`;
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
    return `File ${quoted} does not exist`;
  }
  return `File ${quoted} cannot be read`;
}
