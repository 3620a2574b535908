/**
 * The MCP protocol revisions skillgate serves, and the JSON-RPC batch rule
 * that depends on them. One list, used by the server (what `initialize`
 * negotiates), by the HTTP front (what an `Mcp-Protocol-Version` header may
 * name, and the error that lists them) and by the README.
 *
 * Spec (lifecycle, every revision since 2024-11-05): "If the server supports
 * the requested protocol version, it MUST respond with the same version.
 * Otherwise, the server MUST respond with another protocol version it
 * supports. This SHOULD be the latest version supported by the server." A
 * server may therefore keep serving older revisions; skillgate does, so real
 * older clients (2024-11-05, 2025-03-26, 2025-06-18) keep working, and any
 * other version is answered with 2025-11-25 for the client to decide.
 * `2024-10-07` (a pre-release the SDK still lists, never a published
 * revision) is not served.
 *
 * JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18 (changelog:
 * "Remove support for JSON-RPC batching"); 2025-06-18 and later say the body
 * of a POST "MUST be a single JSON-RPC request, notification, or response".
 *
 * @module
 */

/** Revisions negotiated by `initialize`, newest (preferred) first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/** Revisions served per request (`_meta` envelope, `server/discover`). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(["2026-07-28"]);

/** The first revision without JSON-RPC batches. */
export const FIRST_VERSION_WITHOUT_BATCHES = "2025-06-18";

/**
 * The version an HTTP request speaks when it names none: the spec's rule for
 * a request without `MCP-Protocol-Version` ("the server SHOULD assume
 * protocol version 2025-03-26").
 */
export const HTTP_VERSION_WITHOUT_HEADER = "2025-03-26";

/**
 * Whether a revision is one skillgate serves (either era).
 *
 * @param version A protocol version string.
 * @returns True for the versions in both lists.
 */
export function isServedVersion(version: string): boolean {
  return LEGACY_PROTOCOL_VERSIONS.includes(version) || MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The error text for an `Mcp-Protocol-Version` header naming a revision
 * skillgate does not serve: every served revision, by how it is reached.
 *
 * @param version The header's value (shown cut to 40 characters).
 * @returns One sentence, with what to do.
 */
export function unsupportedVersionMessage(version: string): string {
  return `Bad Request: Unsupported protocol version "${version.slice(0, 40)}"; skillgate serves ` +
    `${MODERN_PROTOCOL_VERSIONS.join(", ")} (per request) and ` +
    `${LEGACY_PROTOCOL_VERSIONS.join(", ")} (negotiated by initialize): send one of them, or ` +
    "initialize again without the header";
}

/**
 * Whether a JSON-RPC batch (a body that is an array) is refused for a
 * session or request speaking `version`.
 *
 * @param version The revision in force (negotiated, or from the header).
 * @returns True from 2025-06-18 on (batches were removed), false before.
 */
export function refusesBatches(version: string): boolean {
  return version >= FIRST_VERSION_WITHOUT_BATCHES;
}

/**
 * The error text for a batch on a revision without batches.
 *
 * @param version The revision in force.
 * @returns One sentence, with what to do.
 */
export function batchRefusalMessage(version: string): string {
  return `Invalid Request: JSON-RPC batches were removed in protocol revision ` +
    `${FIRST_VERSION_WITHOUT_BATCHES} and this request speaks ${version.slice(0, 40)}; send ` +
    "each message in its own POST";
}

/**
 * The revision an `initialize` asking for `requested` is answered with.
 *
 * @param requested The client's `protocolVersion` (any value).
 * @returns `requested` when served in the legacy era, else 2025-11-25.
 */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === "string" && LEGACY_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSIONS[0] as string;
}
