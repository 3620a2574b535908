/**
 * The tests' door to the MCP SDK's v2 client line (`@modelcontextprotocol/client`
 * 2.4.x, pinned in deno.json), beside the 1.32.x client of
 * tests/support/sdk_client.ts. Never imported by src/: the client pulls in
 * cross-spawn, which reads environment variables at import time.
 *
 * @module
 */

export { Client as ClientV2, ProtocolError as ProtocolErrorV2 } from "@modelcontextprotocol/client";
export type { CallToolResult as CallToolResultV2 } from "@modelcontextprotocol/client";
export { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
// HTTP lockout tests (tests/transports/http_connections_test.ts)
export { StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from "@modelcontextprotocol/client";
// The 2.x skills client: SEP-2640 listing and reads verified against digest, size and frontmatter
export { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
