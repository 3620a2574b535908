/**
 * The HTTP front's protocol-version checks on 2025-era traffic, before the
 * SDK's transport sees it: an `Mcp-Protocol-Version` header naming a revision
 * skillgate does not serve is refused with the list it does serve (the SDK's
 * own message lists its revisions, not ours), and a JSON-RPC batch is
 * refused on a revision that removed batches (2025-06-18 and later).
 * Pure over the request's headers and the parsed body.
 *
 * @module
 */

import { isInitializeRequest } from "../../mcp/sdk.ts";
import {
  batchRefusalMessage,
  HTTP_VERSION_WITHOUT_HEADER,
  isServedVersion,
  negotiatedVersion,
  refusesBatches,
  unsupportedVersionMessage,
} from "../../mcp/protocol_versions.ts";
import { JSONRPC_SERVER_ERROR, jsonRpcErrorResponse } from "./responses.ts";

/** JSON-RPC "Invalid Request". */
const JSONRPC_INVALID_REQUEST = -32600;

/**
 * The refusal of one 2025-era HTTP request on protocol grounds, or null.
 *
 * @param request The request (its `mcp-protocol-version` header is read).
 * @param parsedBody The JSON body (undefined for GET and DELETE).
 * @param sessionVersion The revision the session negotiated, or undefined
 *   outside a session (a new session's `initialize`, stateless requests).
 * @returns 400 with `-32000` for an unserved header version, 400 with
 *   `-32600` for a batch (array body) on a revision without batches (the
 *   session's, else the header's, else an `initialize` in it negotiates one,
 *   else 2025-03-26 as the spec says for a request without the header);
 *   null when the request may go on.
 *
 * Source: MCP spec, Streamable HTTP ("Protocol Version Header": an invalid
 * or unsupported version gets 400 Bad Request); 2025-06-18 changelog
 * ("Remove support for JSON-RPC batching").
 */
export function protocolRefusal(
  request: Request,
  parsedBody: unknown,
  sessionVersion?: string,
): Response | null {
  const header = request.headers.get("mcp-protocol-version");
  if (header !== null && !isServedVersion(header)) {
    return jsonRpcErrorResponse(400, JSONRPC_SERVER_ERROR, unsupportedVersionMessage(header));
  }
  if (!Array.isArray(parsedBody)) return null;
  const initialize = parsedBody.find((message) => isInitializeRequest(message)) as
    | { params?: { protocolVersion?: unknown } }
    | undefined;
  // On a session the version it negotiated decides: a header naming an older one must not
  // bring batches back (review r11).
  const version = sessionVersion ?? header ??
    (initialize === undefined
      ? HTTP_VERSION_WITHOUT_HEADER
      : negotiatedVersion(initialize.params?.protocolVersion));
  if (!refusesBatches(version)) return null;
  return jsonRpcErrorResponse(400, JSONRPC_INVALID_REQUEST, batchRefusalMessage(version));
}
