/**
 * The one door to the MCP SDK. skillgate speaks MCP through the SDK's v2 line
 * (`@modelcontextprotocol/server` 2.4.0, pinned in deno.json), which answers
 * both protocol eras from one server: 2025-11-25 through the `initialize`
 * handshake, 2026-07-28 through the per-request `_meta` envelope and
 * `server/discover`. The v2 packages ship real `.d.mts` types, so `deno check`
 * types every symbol; `tests/mcp/sdk_types_test.ts` proves it with a
 * deliberate type error. Import the SDK only through this module.
 *
 * The 1.x package (`@modelcontextprotocol/sdk`) and every SDK client stay out
 * of the product's import graph (`tests/source_scan_test.ts` proves it): tests
 * use the 1.x client as the 2025-era client and the v2 client for 2026-07-28.
 *
 * @module
 */

export {
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  isInitializeRequest,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export type {
  CacheHint,
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  EventStore,
  GetPromptResult,
  Implementation,
  InputRequiredResult,
  JSONRPCMessage,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  McpHttpHandler,
  McpRequestContext,
  Prompt,
  PromptMessage,
  ReadResourceResult,
  RequestStateCodec,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  ServerContext as HandlerContext,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
export { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
// MCP Apps (the ext-apps 2.x line, matching the v2 SDK): the media type of a view, the
// tool `_meta` key older hosts read, the extension's id and how a client declares it.
export {
  EXTENSION_ID as UI_EXTENSION_ID,
  getUiCapability,
  RESOURCE_MIME_TYPE as APP_MIME_TYPE,
  RESOURCE_URI_META_KEY as APP_RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps/server";
