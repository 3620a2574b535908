/**
 * The tests' door to the MCP SDK client, with real types (see src/mcp/sdk.ts
 * for why the `@ts-types` directives are needed). Never imported by src/.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/index"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
