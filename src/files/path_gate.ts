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

import { isAbsolute, join, sep } from "node:path";
import { checkServedFile, checkServedPath, quotePath } from "./served_name.ts";
import { isLocatorExpectedToAnswer } from "./fd_location.ts";

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
  /**
   * Status change time in ms since the epoch, or null when unknown: owners
   * cannot set it, so with the rest it names one version (the index cache keys on it).
   */
  readonly ctimeMs: number | null;
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
 * Checks a client-supplied relative path as a string, touching no file: the
 * served-file rule of `served_name.ts` (the one rule the file listing uses
 * too), as a message.
 *
 * @param path The relative path as the client sent it.
 * @returns `null` when the path passes, else a client-safe refusal message.
 *
 * Source: `checkServedPath()` in `src/files/served_name.ts`.
 */
export function checkPathString(path: string): string | null {
  return checkServedPath(path)?.message ?? null;
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
  const quoted = checkRequest(skillRealDir, relPath);
  let realPath: string;
  try {
    realPath = await Deno.realPath(join(skillRealDir, relPath));
  } catch (error) {
    throw new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
  }
  const realRel = checkRealPath(skillRealDir, relPath, quoted, realPath);
  let info: Deno.FileInfo;
  let skillInfo: Deno.FileInfo;
  try {
    info = await Deno.lstat(realPath);
    checkIsFile(info, quoted);
    skillInfo = await Deno.lstat(skillRealDir);
  } catch (error) {
    throw asNotFound(error, quoted);
  }
  return issue(skillRealDir, relPath, quoted, realPath, realRel, info, skillInfo);
}

/**
 * {@linkcode resolveSkillFile} with synchronous file-system calls: the same
 * checks in the same order, for callers that resolve many files in a row
 * (the first `skills/list` hashes every listed file; issue 13). An
 * asynchronous `realpath` or `lstat` costs about 50 us of event-loop round
 * trip on a loaded machine, a synchronous one of a local file a few; the
 * worker runs nothing else meanwhile.
 *
 * @param skillRealDir As for {@linkcode resolveSkillFile}.
 * @param relPath As for {@linkcode resolveSkillFile}.
 * @returns As {@linkcode resolveSkillFile}.
 * @throws {PathRefusedError} As {@linkcode resolveSkillFile}.
 * @throws {TypeError} As {@linkcode resolveSkillFile}.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: the path rule in `/work/shared/notes/anchors.md`.
 */
export function resolveSkillFileSync(skillRealDir: string, relPath: string): ResolvedFile {
  const quoted = checkRequest(skillRealDir, relPath);
  const beneath = isLocatorExpectedToAnswer() ? realPathBeneath(skillRealDir, relPath) : null;
  if (beneath !== null) {
    const realRel = checkRealPath(skillRealDir, relPath, quoted, beneath.realPath);
    let skillInfo: Deno.FileInfo;
    try {
      checkIsFile(beneath.info, quoted);
      skillInfo = Deno.lstatSync(skillRealDir);
    } catch (error) {
      throw asNotFound(error, quoted);
    }
    return issue(skillRealDir, relPath, quoted, beneath.realPath, realRel, beneath.info, skillInfo);
  }
  let realPath: string;
  try {
    realPath = Deno.realPathSync(join(skillRealDir, relPath));
  } catch (error) {
    throw new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
  }
  const realRel = checkRealPath(skillRealDir, relPath, quoted, realPath);
  let info: Deno.FileInfo;
  let skillInfo: Deno.FileInfo;
  try {
    info = Deno.lstatSync(realPath);
    checkIsFile(info, quoted);
    skillInfo = Deno.lstatSync(skillRealDir);
  } catch (error) {
    throw asNotFound(error, quoted);
  }
  return issue(skillRealDir, relPath, quoted, realPath, realRel, info, skillInfo);
}

/** Skill folders this isolate found to be real paths (see {@linkcode realPathBeneath}). */
const realFolders = new Set<string>();
/** Folders remembered at most; the set starts afresh past it. */
const MAX_REAL_FOLDERS = 50_000;

/**
 * Remembers a skill folder that the caller saw to be its own real path, so
 * the synchronous gate does not `realpath` it again (issue 13: ~3 `readlink`
 * calls a skill on a cold build of 10,000 skills). The catalog's loader calls
 * it for each skill folder discovery found (`SkillCandidate.realDir`): a path
 * discovery got from `realpath` (a root, a container, a followed link) or a
 * real parent's path plus the name of a directory entry whose type (`d_type`,
 * or `lstat` where the file system gives none) says folder, not symlink;
 * that is what the `realpath` check in {@linkcode realPathBeneath} would
 * have found at that moment.
 *
 * Why this keeps the gate exact: it only changes which check at one moment
 * says "real", as the `realpath` there did. What a read relies on is the
 * descriptor-location check after the open (`bounded_read.ts`): a folder
 * remembered here and swapped for a symlink since leads the open elsewhere,
 * the kernel names that elsewhere, and the read is refused. The memo is read
 * only while the locator is expected to answer; where it cannot, every
 * resolve uses `realpath` and the narrowed open confirms the real path after
 * opening, as before. A path that was never real fails closed the same way.
 *
 * @param realDir An absolute path the caller saw to be its own real path.
 */
export function rememberRealFolder(realDir: string): void {
  if (!isAbsolute(realDir) || realFolders.has(realDir)) return;
  if (realFolders.size >= MAX_REAL_FOLDERS) realFolders.clear();
  realFolders.add(realDir);
}

/**
 * The real path of a file below a real skill folder, found with one `lstat`
 * per segment instead of a `realpath` of the whole path (which reads every
 * component from `/` down; issue 13: the first full `skills/list` at 10,000
 * skills resolves 40,000 files), or null to let `realpath` decide (and
 * refuse, with its usual reason). Used only while the descriptor-location
 * check answers (`isLocatorExpectedToAnswer`). Why the result is what
 * `realpath` gives: the skill folder was checked to be its own real path
 * (`realpath`, once per folder per isolate, or discovery saw it real:
 * {@linkcode rememberRealFolder}), the served-file rule leaves no
 * empty, `.` or `..` segment, and every segment below it is seen here to be
 * no symlink (folders, then the file), so nothing is left to resolve. A
 * symlink anywhere below goes to `realpath`. Why remembering the folder
 * keeps the guarantee: like `realpath`, this is a check at one moment; what
 * a read relies on is the check after the open, where the kernel names the
 * descriptor's real location, which must be exactly this path: an ancestor
 * swapped for a symlink since leads the open elsewhere and is refused there
 * (`bounded_read.ts`). Where no locator answers, every resolve uses
 * `realpath`, as before.
 */
function realPathBeneath(
  skillRealDir: string,
  relPath: string,
): { readonly realPath: string; readonly info: Deno.FileInfo } | null {
  if (!realFolders.has(skillRealDir)) {
    try {
      if (Deno.realPathSync(skillRealDir) !== skillRealDir) return null;
    } catch {
      return null;
    }
    rememberRealFolder(skillRealDir);
  }
  const segments = relPath.split("/");
  let path = skillRealDir.endsWith(sep) ? skillRealDir.slice(0, -1) : skillRealDir;
  for (let index = 0; index < segments.length; index++) {
    path = `${path}${sep}${segments[index]}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      return null;
    }
    if (info.isSymlink) return null;
    if (index === segments.length - 1) return { realPath: path, info };
    if (!info.isDirectory) return null;
  }
  return null;
}

/** The string checks before any file-system call; returns the quoted path. */
function checkRequest(skillRealDir: string, relPath: string): string {
  if (!isAbsolute(skillRealDir)) throw new TypeError("Skill folder must be an absolute real path");
  const refusal = checkPathString(relPath);
  if (refusal !== null) throw new PathRefusedError("bad-path", refusal);
  return quotePath(relPath);
}

/** Containment and the served-file rule on the real path; returns it relative to the skill. */
function checkRealPath(
  skillRealDir: string,
  relPath: string,
  quoted: string,
  realPath: string,
): string {
  if (!isStrictlyInside(skillRealDir, realPath)) {
    throw new PathRefusedError("outside-skill", `Path ${quoted} leads outside the skill`);
  }
  // The part after the folder and its separator: what `path.relative` gives for a real path
  // strictly inside a real folder, without its normalising work (~5 us a resolve; issue 13: the
  // first full skills/list resolves 40,000 files). A tail with an empty, `.` or `..` segment
  // (neither `realpath` nor `realPathBeneath` gives one) breaks the served-file rule below.
  const tail = realPath.slice(
    skillRealDir.endsWith(sep) ? skillRealDir.length : skillRealDir.length + 1,
  );
  const realRel = sep === "/" ? tail : tail.split(sep).join("/");
  const breach = checkServedFile(relPath, realRel);
  if (breach !== null) throw new PathRefusedError("bad-path", breach.message);
  return realRel;
}

function checkIsFile(info: Deno.FileInfo, quoted: string): void {
  if (!info.isFile) {
    throw new PathRefusedError("not-a-file", `Path ${quoted} is not a regular file`);
  }
}

function asNotFound(error: unknown, quoted: string): PathRefusedError {
  if (error instanceof PathRefusedError) return error;
  return new PathRefusedError("not-found", notFoundMessage(quoted, error), { cause: error });
}

/** Issues the frozen, branded result once every check passed. */
function issue(
  skillRealDir: string,
  relPath: string,
  quoted: string,
  realPath: string,
  realRel: string,
  info: Deno.FileInfo,
  skillInfo: Deno.FileInfo,
): ResolvedFile {
  if (!skillInfo.isDirectory) {
    throw new PathRefusedError("not-found", `File ${quoted} does not exist`);
  }
  const file = Object.freeze({
    relPath,
    realPath,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
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

export { quotePath };

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
