/**
 * The 1.x reference floor: the same one-tool server as `floor_server.ts`,
 * built on `@modelcontextprotocol/sdk` 1.32 (the line skillgate left in issue
 * 12). Bench-only: the product never imports the 1.x package. It speaks
 * 2025-11-25 only.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The floor's only tool. */
export const FLOOR_V1_TOOL = "ping";

/**
 * Creates the 1.x floor server.
 *
 * @returns An unconnected 1.x server answering `tools/list` and `tools/call`.
 */
export function createFloorServerV1(): Server {
  const server = new Server(
    { name: "skillgate-bench-floor-v1", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: FLOOR_V1_TOOL,
      description: "Answers pong",
      inputSchema: { type: "object", properties: {} },
    }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: "text", text: "pong" }],
  }));
  return server;
}

if (import.meta.main) {
  await createFloorServerV1().connect(new StdioServerTransport());
}
