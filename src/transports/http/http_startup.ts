/**
 * HTTP start-up decisions made by the trusted part before the worker starts:
 * which bearer token is in force (from `SKILLGATE_HTTP_TOKEN` or the token
 * file, never a flag value that `ps` would show), and whether the listen
 * address may be used without one. The worker never reads the token file.
 *
 * @module
 */

import { MAX_HTTP_TOKEN_FILE_BYTES, MIN_HTTP_TOKEN_CHARS } from "../../caps.ts";
import type { Config } from "../../config/config.ts";
import { shellQuote } from "../../cli/shell_quote.ts";
import { logErrorLine } from "../../cli/terminal_text.ts";
import { isLoopbackHost, urlHost } from "./host_policy.ts";
import { type OpenedFileInfo, readRegularFile } from "../../files/regular_file.ts";

/** A start-up problem with the HTTP settings; the trusted part exits with code 2. */
export class HttpStartupError extends Error {
  override name = "HttpStartupError";
}

/** The address the worker listens on. */
export interface ListenAddress {
  /** As configured (`--host`), e.g. `127.0.0.1`, `::1`, `0.0.0.0`. */
  readonly host: string;
  readonly port: number;
}

/**
 * The listen address of an HTTP configuration.
 *
 * @param config The configuration.
 * @returns The address, or null on stdio.
 */
export function listenAddressOf(config: Config): ListenAddress | null {
  const port = config.options.http;
  return port === null ? null : { host: config.options.host, port };
}

/**
 * The URL clients use, e.g. `http://127.0.0.1:3000/mcp`.
 *
 * @param address The listen address.
 * @returns The MCP endpoint's URL.
 */
export function mcpUrlOf(address: ListenAddress): string {
  return `http://${urlHost(address.host)}:${address.port}/mcp`;
}

/**
 * Settles the token: `SKILLGATE_HTTP_TOKEN` or the contents of
 * `--http-token-file` (trimmed; at most 4 KiB), not both; at least
 * {@linkcode MIN_HTTP_TOKEN_CHARS} characters of printable ASCII (a bearer
 * credential cannot hold spaces). Bound beyond loopback (a host
 * other than `localhost`, `127.0.0.0/8` or `::1`), a token is required.
 * Returns `config` itself on stdio.
 *
 * @param config The parsed configuration.
 * @param options `readTokenFile` replaces the file read (tests); `onWarning`
 *   receives each warning line about the token file (default: stderr, as
 *   `skillgate: warning: ...`).
 * @returns A frozen copy of `config` whose `httpToken` is the token in force
 *   (null when none is configured on loopback).
 * @throws {HttpStartupError} When both sources are set, the file cannot be
 *   read, is empty or too large, others may write it, its folder or own it
 *   (see {@linkcode readTokenFile}), the token is too short or not printable, or a token is
 *   required and missing.
 *
 * Requires `--allow-read` on the token file (trusted part only).
 *
 * Source: MCP 2025-11-25, "Transports", security warning (bind locally,
 * authenticate connections).
 */
export async function settleHttpToken(
  config: Config,
  options: {
    readTokenFile?: (path: string) => Promise<string>;
    onWarning?: (line: string) => void;
  } = {},
): Promise<Config> {
  const address = listenAddressOf(config);
  if (address === null) return config;
  const file = config.options.httpTokenFile;
  if (file !== null && config.httpToken !== null) {
    throw new HttpStartupError(
      "Set the HTTP token once: SKILLGATE_HTTP_TOKEN or --http-token-file, not both",
    );
  }
  let token = config.httpToken;
  if (file !== null) {
    const onWarning = options.onWarning ??
      ((line: string) => logErrorLine(`skillgate: warning: ${line}`));
    const read = options.readTokenFile ?? ((path: string) => readTokenFile(path, { onWarning }));
    token = (await read(file)).trim();
  }
  if (token !== null && token.length < MIN_HTTP_TOKEN_CHARS) {
    throw new HttpStartupError(
      `The HTTP token is too short; use at least ${MIN_HTTP_TOKEN_CHARS} characters ` +
        "(for example: openssl rand -hex 32)",
    );
  }
  if (token !== null && !/^[\x21-\x7e]+$/.test(token)) {
    throw new HttpStartupError(
      "The HTTP token must be printable ASCII without spaces (for example: openssl rand -hex 32)",
    );
  }
  if (token === null && !isLoopbackHost(address.host)) {
    throw new HttpStartupError(
      `Listening on "${address.host}" reaches beyond this machine, so a bearer token is ` +
        "required: set SKILLGATE_HTTP_TOKEN or --http-token-file (for example: " +
        "openssl rand -hex 32 > token && chmod 600 token), or use --host 127.0.0.1",
    );
  }
  return Object.freeze({ ...config, httpToken: token });
}

/**
 * The start-up warning for an HTTP server without a bearer token: any local
 * user (and any process sharing the loopback) can read every skill served,
 * and, when scripts could run, `skill_run` will refuse every call (see
 * `httpRunRefusal`): the owner should hear both before a client does.
 *
 * @param config The configuration after {@linkcode settleHttpToken}.
 * @param facts `mayRunScripts`: whether the grant lets any script run (the
 *   worker's run permission is not empty).
 * @returns One line for stderr (without the `skillgate: ` prefix), or null
 *   on stdio or with a token.
 */
export function httpScriptsWarning(
  config: Config,
  facts: { mayRunScripts: boolean },
): string | null {
  if (config.options.http === null || config.httpToken !== null) return null;
  // Review n8: loopback is no wall between the users of one machine (or containers sharing its
  // network): without a token every one of them reads every skill this user can.
  const readers = "warning: no bearer token, so any local user (and any process sharing this " +
    "loopback) can read every skill served here, including files their own accounts cannot " +
    "read; set SKILLGATE_HTTP_TOKEN or --http-token-file";
  if (!facts.mayRunScripts || config.scripts.confirmMode === "refuse") return readers;
  return `${readers} (without one, skill_run is refused over HTTP too)`;
}

/**
 * Reads a token file: at most {@linkcode MAX_HTTP_TOKEN_FILE_BYTES} bytes,
 * strict UTF-8, not blank, and only while no one else can change it or read
 * it unseen (review n7; the rule ssh applies to its keys): the file (as
 * opened) and the folder that really holds it must belong to this user or
 * root, and neither may be writable by group or others (a world-writable
 * folder with the sticky bit, like `/tmp`, is fine: others cannot replace a
 * file there). A file group or others can read is used with a warning.
 *
 * @param path Absolute path of the owner's token file.
 * @param options `onWarning`: receives the warning line (without prefix)
 *   when group or others can read the file. @default none
 * @returns The file's text, untrimmed.
 * @throws {HttpStartupError} When it does not exist, is a folder or not a
 *   regular file, cannot be read, is too large, not text or blank, belongs to
 *   another user, or it or its folder is writable by group or others; the
 *   message names the chmod or chown to run.
 *
 * Requires `--allow-read` on `path` and its folder, `--allow-sys=uid`.
 */
export async function readTokenFile(
  path: string,
  options: { readonly onWarning?: (line: string) => void } = {},
): Promise<string> {
  const refuse = (why: string) => new HttpStartupError(`The HTTP token file "${path}" ${why}`);
  // What to do when there is no token in it yet (review s15 L6: "does not exist" said only what).
  const create = `openssl rand -hex 32 > ${shellQuote(path)} && chmod 600 ${shellQuote(path)}`;
  let bytes: Uint8Array;
  let info: OpenedFileInfo;
  let folder: string;
  let real: string;
  try {
    const before = await Deno.stat(path);
    if (before.isDirectory) {
      throw refuse("is a folder, not a file; name the file that holds the token");
    }
    if (!before.isFile) throw refuse("is not a regular file");
    real = await Deno.realPath(path);
    folder = real.slice(0, Math.max(real.lastIndexOf("/"), 1));
    // Opened without waiting (a FIFO swapped in after the stat cannot hold start-up) and judged
    // by what was opened: its owner and mode are what count.
    const read = await readRegularFile(path, MAX_HTTP_TOKEN_FILE_BYTES);
    if (read.kind === "missing") throw new Deno.errors.NotFound();
    if (read.kind === "not-regular") throw refuse("is not a regular file");
    info = read.info;
    if (info.dev !== before.dev || info.ino !== before.ino) {
      throw refuse("changed while it was read; try again");
    }
    bytes = read.kind === "read" ? read.bytes : new Uint8Array(MAX_HTTP_TOKEN_FILE_BYTES + 1);
  } catch (error) {
    if (error instanceof HttpStartupError) throw error;
    const why = error instanceof Deno.errors.NotFound
      ? `does not exist; create it: ${await withFolder(path, create)}`
      : error instanceof Deno.errors.PermissionDenied
      ? "cannot be read (permission denied)"
      : "cannot be read";
    throw refuse(why);
  }
  await checkTokenFileOwnership({ path, real, folder }, info, options.onWarning);
  if (bytes.length > MAX_HTTP_TOKEN_FILE_BYTES) {
    throw refuse(`is larger than ${MAX_HTTP_TOKEN_FILE_BYTES} bytes`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refuse("is not UTF-8 text");
  }
  if (text.trim() === "") throw refuse(`is empty; put a token in it: ${create}`);
  return text;
}

/** `command`, after a `mkdir -p` of `path`'s folder when that folder does not exist either. */
async function withFolder(path: string, command: string): Promise<string> {
  const folder = path.slice(0, Math.max(path.lastIndexOf("/"), 1));
  try {
    await Deno.stat(folder);
    return command;
  } catch {
    return `mkdir -p ${shellQuote(folder)} && ${command}`;
  }
}

/** Whether a uid may own the token file or its folder: this user, or root. */
function isTrustedOwner(uid: number | null, me: number | null): boolean {
  return uid === null || me === null || uid === me || uid === 0;
}

/**
 * The ownership and mode rule of {@linkcode readTokenFile}: refuses what
 * others may write or own, warns on what they may read. Every message names
 * the file whose owner or mode must change: given through a link, the
 * link's target (review n8: the commands named the link, whose own mode
 * `ls -l` shows as lrwxrwxrwx).
 */
async function checkTokenFileOwnership(
  where: { readonly path: string; readonly real: string; readonly folder: string },
  info: { readonly uid: number | null; readonly mode: number | null },
  onWarning: ((line: string) => void) | undefined,
): Promise<void> {
  const me = Deno.uid();
  const { folder } = where;
  const path = where.real;
  const shown = where.real === where.path
    ? `"${where.path}"`
    : `"${where.real}" (given as the link "${where.path}")`;
  const fileMode = info.mode ?? 0;
  if (!isTrustedOwner(info.uid, me)) {
    throw new HttpStartupError(
      `The HTTP token file ${shown} belongs to another user (uid ${info.uid}), who could change ` +
        `or read the token; use a file of your own (chown ${me} ${path} && chmod 600 ${path})`,
    );
  }
  if ((fileMode & 0o022) !== 0) {
    throw new HttpStartupError(
      `The HTTP token file ${shown} is writable by ${whom(fileMode, 0o020, 0o002)}, who could ` +
        `replace the token; run: chmod 600 ${path}`,
    );
  }
  let folderInfo: Deno.FileInfo;
  try {
    folderInfo = await Deno.stat(folder);
  } catch {
    throw new HttpStartupError(
      `The folder of the HTTP token file ${shown} cannot be checked; keep the file in a ` +
        "folder of your own",
    );
  }
  const folderMode = folderInfo.mode ?? 0;
  const isSticky = (folderMode & 0o1000) !== 0;
  if (!isTrustedOwner(folderInfo.uid, me)) {
    throw new HttpStartupError(
      `The HTTP token file ${shown} lies in a folder of another user (uid ${folderInfo.uid}), ` +
        "who could swap the file; keep it in a folder of your own",
    );
  }
  if ((folderMode & 0o022) !== 0 && !isSticky) {
    throw new HttpStartupError(
      `The folder "${folder}" of the HTTP token file is writable by ` +
        `${whom(folderMode, 0o020, 0o002)}, who could swap the file; run: chmod go-w ${folder} ` +
        "(or keep the token in a folder of your own)",
    );
  }
  if ((fileMode & 0o044) !== 0) {
    onWarning?.(
      `the HTTP token file ${shown} is readable by ${whom(fileMode, 0o040, 0o004)}, who can ` +
        `then call skill_run with it; run: chmod 600 ${path}`,
    );
  }
}

/** "group", "others" or "group and others", from a mode and the two bits asked about. */
function whom(mode: number, groupBit: number, otherBit: number): string {
  const group = (mode & groupBit) !== 0;
  const other = (mode & otherBit) !== 0;
  return group && other ? "group and others" : group ? "its group" : "others";
}
