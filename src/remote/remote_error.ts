/**
 * The one error class of remote fetching. Its `reason` is stable and becomes
 * the problem a client sees; its message names the source, never a token, a
 * host path or an allow-list. Messages quote what a remote sent (archive
 * member names, index values), so every control, line separator and bidi
 * character in one is escaped as `\uXXXX` here, the one gate they all pass:
 * a publisher cannot break a log line or reorder a client's text.
 *
 * @module
 */

import { CONTROL } from "../files/served_name.ts";

const CONTROL_ALL = new RegExp(CONTROL.source, "gu");

/** Why a fetch failed. */
export type RemoteFailure =
  | "not-found" // 404: no such repository, ref or path (or no access)
  | "rate-limited" // 403/429 with the rate-limit headers
  | "unauthorized" // 401/403 otherwise: the token is missing, wrong or lacks access
  | "offline" // the network or the host is unreachable
  | "refused-host" // a redirect led off the allowed hosts
  | "too-large" // a byte, member or size cap
  | "timeout" // the fetch outlived fetchTimeoutMs
  | "unsafe-archive" // absolute path, `..`, link, device, duplicate
  | "bad-archive" // not gzip/tar, corrupt header
  | "lock-mismatch" // content differs from the lock
  | "digest-mismatch" // a publisher's artifact or file differs from its index digest
  | "bad-index" // a publisher's index is not JSON with a skills list
  | "cache-readable" // with GITHUB_TOKEN, the sources cache (or the source's folder) may be read by others
  | "http"; // any other answer

/** A failed fetch, with a stable reason. */
export class RemoteError extends Error {
  /**
   * @param reason The stable reason.
   * @param message What happened and what to do, sentence case.
   */
  constructor(readonly reason: RemoteFailure, message: string) {
    super(escapeControls(message));
    this.name = "RemoteError";
  }
}

/**
 * Escapes control, separator and bidi characters as `\uXXXX`.
 *
 * @param text Any text.
 * @returns The text with none of them left.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
