/**
 * The shape of one MCP tool: its advertised metadata, zod schemas for input
 * and output, and the handler. Tools are served by `src/mcp/tools_handler.ts`
 * through the SDK's low-level server, so that argument errors come back in our
 * `{error, message, hint}` shape instead of the SDK's plain text.
 *
 * @module
 */

import type { z } from "zod";
import type { Caps } from "../../caps.ts";
import type { CatalogStore } from "../../skills/catalog_store.ts";
import type { CallToolResult, ToolAnnotations } from "../sdk.ts";

/** What every tool handler may use. */
export interface ToolContext {
  readonly store: CatalogStore;
  readonly caps: Caps;
  readonly hosted: boolean;
}

/** One tool. `Input` is what `inputSchema` parses to. */
export interface SkillTool<Input> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  readonly outputSchema: z.ZodType;
  readonly annotations: ToolAnnotations;
  readonly call: (input: Input, context: ToolContext) => Promise<CallToolResult>;
}

/** Annotations of a tool that only reads skills: read-only, idempotent, closed-world. */
export const READ_ONLY_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * Declares a tool with its input type inferred from the schema.
 *
 * @param tool The tool.
 * @returns The same tool, typed.
 */
export function defineTool<Input>(tool: SkillTool<Input>): SkillTool<Input> {
  return tool;
}
