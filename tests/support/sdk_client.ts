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
// @ts-types="@modelcontextprotocol/sdk/types"
export type { Resource } from "@modelcontextprotocol/sdk/types.js";
// Skills extension, catalog and live refresh tests (tests/mcp/skills_extension/, tests/refresh/)
// @ts-types="@modelcontextprotocol/sdk/inMemory"
export { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
// The 1.x client's error class (what a 2025-era client sees as a JSON-RPC error)
// @ts-types="@modelcontextprotocol/sdk/types"
export { McpError } from "@modelcontextprotocol/sdk/types.js";
// skill_run tests (tests/e2e/skill_run_test.ts): elicitation and progress
// @ts-types="@modelcontextprotocol/sdk/types"
export { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type { ClientCapabilities, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
// HTTP transport tests (tests/transports/http_*_test.ts, tests/e2e/http_test.ts)
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// Output-schema guard (tests/mcp/tools/output_schema_test.ts): the validator the 1.32 client uses
// @ts-types="@modelcontextprotocol/sdk/validation/ajv"
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
