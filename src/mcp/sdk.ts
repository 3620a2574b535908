/**
 * The one door to the MCP SDK. Every SDK symbol the server uses is re-exported
 * here with a `@ts-types` directive, because the SDK's exports map points deep
 * imports at `.d.ts` files that do not exist and `deno check` would otherwise
 * type them as `any` (see shared/notes/toolchain.md). Import the SDK only
 * through this module; `tests/mcp/sdk_types_test.ts` proves the types are real.
 *
 * The SDK client is deliberately absent: it pulls in cross-spawn, which reads
 * environment variables at import time, and the worker may read only a few.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type {
  CallToolResult,
  Implementation,
  JSONRPCMessage,
  ServerCapabilities,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
// Resources, prompts and completion (src/mcp/resources/, src/mcp/prompts/, src/mcp/completions/)
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type {
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  Prompt,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
// Streamable HTTP transport (src/transports/http/)
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export {
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
