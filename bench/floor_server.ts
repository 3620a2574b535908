/**
 * The benchmark's floor: the smallest MCP stdio server the SDK's v2 line
 * makes (`serveStdio`, both protocol eras), one trivial tool, nothing else. It loads the same SDK modules skillgate uses
 * (through `src/mcp/sdk.ts`), runs under the same Deno with the same trusted
 * flags, so skillgate's figures divided by this server's read as "how many
 * times the unavoidable cost".
 *
 * Run: `deno run <trusted flags> bench/floor_server.ts` (the benchmark does).
 *
 * @module
 */

import { Server, serveStdio } from "../src/mcp/sdk.ts";

/** The one tool's name. */
export const FLOOR_TOOL = "ping";

/**
 * Creates the floor server: tools capability, one `ping` tool answering `pong`.
 *
 * @returns The server, not connected yet.
 */
export function createFloorServer(): Server {
  const server = new Server(
    { name: "skillgate-bench-floor", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler("tools/list", () => ({
    tools: [{
      name: FLOOR_TOOL,
      description: "Answers pong",
      inputSchema: { type: "object", properties: {} },
    }],
  }));
  server.setRequestHandler("tools/call", () => ({
    content: [{ type: "text", text: "pong" }],
  }));
  return server;
}

if (import.meta.main) {
  // The SDK's dual-era stdio entry, as skillgate uses it: the first message
  // pins 2025-11-25 (initialize) or 2026-07-28 (the _meta envelope).
  serveStdio(() => createFloorServer());
}
