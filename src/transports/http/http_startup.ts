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
import { isLoopbackHost, urlHost } from "./host_policy.ts";

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
 * @param options `readTokenFile` replaces the file read (tests).
 * @returns A frozen copy of `config` whose `httpToken` is the token in force
 *   (null when none is configured on loopback).
 * @throws {HttpStartupError} When both sources are set, the file cannot be
 *   read, is empty or too large, the token is too short or not printable, or a token is
 *   required and missing.
 *
 * Requires `--allow-read` on the token file (trusted part only).
 *
 * Source: MCP 2025-11-25, "Transports", security warning (bind locally,
 * authenticate connections).
 */
export async function settleHttpToken(
  config: Config,
  options: { readTokenFile?: (path: string) => Promise<string> } = {},
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
  if (file !== null) token = (await (options.readTokenFile ?? readTokenFile)(file)).trim();
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
 * The start-up warning for an HTTP server that could run scripts but has no
 * bearer token: `skill_run` will refuse every call (see
 * `httpRunRefusal`), and the owner should hear why before a client does.
 *
 * @param config The configuration after {@linkcode settleHttpToken}.
 * @param facts `mayRunScripts`: whether the grant lets any script run (the
 *   worker's run permission is not empty).
 * @returns One line for stderr (without the `skillgate: ` prefix), or null
 *   on stdio, with a token, when confirmations refuse everything, or when
 *   nothing could run anyway.
 */
export function httpScriptsWarning(
  config: Config,
  facts: { mayRunScripts: boolean },
): string | null {
  if (config.options.http === null || config.httpToken !== null) return null;
  if (!facts.mayRunScripts || config.scripts.confirmMode === "refuse") return null;
  return "warning: skill_run is refused over HTTP without a bearer token (any local user can " +
    "reach a loopback port); set SKILLGATE_HTTP_TOKEN or --http-token-file to let clients " +
    "run scripts";
}

/**
 * Reads a token file: at most {@linkcode MAX_HTTP_TOKEN_FILE_BYTES} bytes,
 * strict UTF-8, not blank.
 *
 * @param path Absolute path of the owner's token file.
 * @returns The file's text, untrimmed.
 * @throws {HttpStartupError} When it cannot be read, is too large, not text or blank.
 *
 * Requires `--allow-read` on `path`.
 */
export async function readTokenFile(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    using file = await Deno.open(path, { read: true });
    const buffer = new Uint8Array(MAX_HTTP_TOKEN_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = await file.read(buffer.subarray(length));
      if (read === null) break;
      length += read;
    }
    bytes = buffer.subarray(0, length);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "does not exist"
      : error instanceof Deno.errors.PermissionDenied
      ? "cannot be read (permission denied)"
      : "cannot be read";
    throw new HttpStartupError(`The HTTP token file "${path}" ${why}`);
  }
  if (bytes.length > MAX_HTTP_TOKEN_FILE_BYTES) {
    throw new HttpStartupError(
      `The HTTP token file "${path}" is larger than ${MAX_HTTP_TOKEN_FILE_BYTES} bytes`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpStartupError(`The HTTP token file "${path}" is not UTF-8 text`);
  }
  if (text.trim() === "") throw new HttpStartupError(`The HTTP token file "${path}" is empty`);
  return text;
}
