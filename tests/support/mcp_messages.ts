/**
 * The raw MCP messages and headers that tests and the benchmark write by
 * hand (where the SDK client would not send what the test needs, or would
 * add overhead to a measurement).
 *
 * @module
 */

/** The protocol revision hand-written clients ask for. */
export const PROTOCOL_VERSION = "2025-11-25";

/** An `initialize` request (id 1) from a client with no capabilities. */
export const INITIALIZE_REQUEST = Object.freeze({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: Object.freeze({
    protocolVersion: PROTOCOL_VERSION,
    capabilities: Object.freeze({}),
    clientInfo: Object.freeze({ name: "skillgate-tests", version: "1.0.0" }),
  }),
});

/** {@linkcode INITIALIZE_REQUEST} as one JSON text (an HTTP body or a stdio line). */
export const INITIALIZE: string = JSON.stringify(INITIALIZE_REQUEST);

/** The `notifications/initialized` notification as one JSON text. */
export const INITIALIZED: string = JSON.stringify({
  jsonrpc: "2.0",
  method: "notifications/initialized",
});

/** The headers a Streamable HTTP client sends with a POST. */
export const POST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
});
