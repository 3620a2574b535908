/**
 * The protocol errors of the resources family. Messages are client-safe: they
 * quote the URI the client sent (cut to a readable length) and never a host
 * path.
 *
 * @module
 */

import { quotePath } from "../../files/path_gate.ts";
import { ProtocolError, ProtocolErrorCode } from "../sdk.ts";

/**
 * The code a handler throws for a resource that is not served: the SDK's
 * `ResourceNotFound` (-32002, MCP 2025-11-25). The v2 SDK's wire codecs send
 * it as -32602 with `data.uri` on both eras (SEP-2164; the 2026-07-28 code),
 * so clients see -32602; the conformance scenario
 * `sep-2164-resource-not-found` checks that.
 */
export const RESOURCE_NOT_FOUND = -32002;

/** Characters of a URI quoted in a message or in error data at most. */
const MAX_QUOTED_URI_CHARS = 300;

/**
 * The error for a URI this server does not serve.
 *
 * @param uri The URI as the client sent it.
 * @param reason Why, in sentence case without a final period (client-safe).
 * @returns An `ProtocolError` with code {@linkcode RESOURCE_NOT_FOUND}, a message
 *   naming the URI and the reason, and `data: {uri}`.
 *
 * Source: MCP 2025-11-25, "Resources", error handling (-32002 resource not
 * found; the 2026-07-28 revision and SEP-2164 move it to -32602, which the
 * SDK's codecs put on the wire for both eras).
 */
export function resourceNotFound(uri: string, reason: string): ProtocolError {
  const shown = cut(uri);
  return new ProtocolError(
    RESOURCE_NOT_FOUND,
    `Resource ${quotePath(shown)} is not served: ${lowerFirst(reason)}`,
    { uri: shown },
  );
}

/**
 * The error for a served file larger than `resources/read` returns whole.
 *
 * @param uri The URI as the client sent it.
 * @param details The skill name, the file's relative path, its size and the
 *   cap, both in bytes.
 * @returns An `ProtocolError` -32602 whose message states the size and the cap and
 *   tells the client to page the file with the `skill_file` tool; `data`
 *   carries `{uri, sizeBytes, maxBytes}`.
 *
 * Source: issue 3 ("a larger file gets a clear error, never a silent cut").
 */
export function resourceTooLarge(
  uri: string,
  details: { name: string; path: string; sizeBytes: number; maxBytes: number },
): ProtocolError {
  const { name, path, sizeBytes, maxBytes } = details;
  const call = JSON.stringify({ name, paths: [{ path, offset: 0 }] });
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Resource ${quotePath(cut(uri))} is ${sizeBytes} bytes, over the ${maxBytes}-byte cap of ` +
      `resources/read, so it is not returned (not even in part). Read it in pages with the ` +
      `skill_file tool, starting with ${call} and continuing at each answer's nextOffset`,
    { uri: cut(uri), sizeBytes, maxBytes },
  );
}

function cut(uri: string): string {
  return uri.length > MAX_QUOTED_URI_CHARS ? `${uri.slice(0, MAX_QUOTED_URI_CHARS)}…` : uri;
}

function lowerFirst(text: string): string {
  const first = text.charAt(0);
  const second = text.charAt(1);
  // Keep acronyms and quoted names as they are ("URI", "SKILL.md").
  if (second !== "" && second === second.toUpperCase() && second !== second.toLowerCase()) {
    return text;
  }
  return first.toLowerCase() + text.slice(1);
}
