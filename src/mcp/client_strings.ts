/**
 * The one check every client-supplied string passes before it reaches a
 * lookup: a stated length cap (see `src/caps.ts`), refused at once with a
 * message that names the cap and never echoes the string. After it, lookups
 * are indexes (`Catalog.byName`, binary search over sorted paths), and any
 * scan for suggestions is bounded by {@linkcode MAX_SUGGESTION_NEEDLE_CHARS}.
 *
 * Caps, by kind:
 * - `name` (skill or prompt name): MAX_CLIENT_NAME_CHARS, 255;
 * - `uri`: MAX_URI_CHARS, 8,192;
 * - `cursor`: MAX_CURSOR_CHARS, 8,192;
 * - `path` (a skill file's relative path): MAX_PATH_CHARS, 1,024;
 * - `completion` (a completion argument's value): MAX_COMPLETION_VALUE_CHARS, 1,024;
 * - `query` (`skill_list`): MAX_QUERY_CHARS, 256;
 * - `tool` (a tool name): MAX_TOOL_NAME_CHARS, 128.
 *
 * @module
 */

import {
  MAX_CLIENT_NAME_CHARS,
  MAX_COMPLETION_VALUE_CHARS,
  MAX_CURSOR_CHARS,
  MAX_PATH_CHARS,
  MAX_QUERY_CHARS,
  MAX_SUGGESTION_NEEDLE_CHARS,
  MAX_TOOL_NAME_CHARS,
  MAX_URI_CHARS,
} from "../caps.ts";
import { ProtocolError, ProtocolErrorCode } from "./sdk.ts";

export { MAX_SUGGESTION_NEEDLE_CHARS };

/** The kinds of client strings, each with its cap. */
export const CLIENT_STRING_CAPS = Object.freeze({
  name: MAX_CLIENT_NAME_CHARS,
  uri: MAX_URI_CHARS,
  cursor: MAX_CURSOR_CHARS,
  path: MAX_PATH_CHARS,
  completion: MAX_COMPLETION_VALUE_CHARS,
  query: MAX_QUERY_CHARS,
  tool: MAX_TOOL_NAME_CHARS,
});

/** A kind of client string. */
export type ClientStringKind = keyof typeof CLIENT_STRING_CAPS;

const ADVICE: Readonly<Record<ClientStringKind, string>> = Object.freeze({
  name: "skill names are directory names of at most 255 bytes (the Agent Skills spec allows " +
    "64 characters); call skill_list or prompts/list for the names served",
  uri: "call resources/list for the URIs served",
  cursor: "send back the nextCursor of the previous page unchanged, or call again without one",
  path: "call skill_load for the skill's file paths",
  completion: "complete a name or a file path",
  query: "search with fewer words",
  tool: "call tools/list for the tools served",
});

/**
 * Says what is wrong with a client string that is too long.
 *
 * @param kind Which cap applies (see {@linkcode CLIENT_STRING_CAPS}).
 * @param what How the message names the string, e.g. `Prompt name`.
 * @param value The client's value; only its length is quoted.
 * @returns A sentence-case message without a final period, or null when the
 *   value is within the cap (or not a string: the caller's schema decides).
 */
export function clientStringIssue(
  kind: ClientStringKind,
  what: string,
  value: unknown,
): string | null {
  const maxChars = CLIENT_STRING_CAPS[kind];
  if (typeof value !== "string" || value.length <= maxChars) return null;
  return `${what} is ${value.length} characters long; at most ${maxChars} are accepted: ` +
    ADVICE[kind];
}

/**
 * Refuses a too-long client string with a protocol error -32602.
 *
 * @param kind Which cap applies.
 * @param what How the message names the string.
 * @param value The client's value.
 * @throws {ProtocolError} -32602 (invalid params) when `value` is a string over
 *   its cap; the message names the cap, not the value.
 */
export function assertClientString(kind: ClientStringKind, what: string, value: unknown): void {
  const issue = clientStringIssue(kind, what, value);
  if (issue !== null) throw new ProtocolError(ProtocolErrorCode.InvalidParams, issue);
}
