/**
 * Builds the MCP server over a catalog store: capabilities, server info, and
 * every method family. Transport-agnostic: stdio and HTTP connect the same
 * server shape.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import { VERSION } from "../version.ts";
import { Server } from "./sdk.ts";
import { serveTools } from "./tools_handler.ts";
import { skillFileTool } from "./tools/skill_file.ts";
import { skillListTool } from "./tools/skill_list.ts";
import { skillLoadTool } from "./tools/skill_load.ts";
import type { SkillTool } from "./tools/tool.ts";

/** What the server needs besides the catalog. */
export interface ServerOptions {
  readonly caps: Caps;
  readonly hosted: boolean;
}

/** The tools served, in `tools/list` order. */
export const TOOLS: readonly SkillTool<unknown>[] = Object.freeze([
  skillListTool as SkillTool<unknown>,
  skillLoadTool as SkillTool<unknown>,
  skillFileTool as SkillTool<unknown>,
]);

/**
 * Creates an MCP server answering from `store`.
 *
 * @param store Holds the current catalog snapshot.
 * @param options Caps and whether the server is hosted.
 * @returns A server ready to `connect()` to a transport.
 */
export function createSkillServer(store: CatalogStore, options: ServerOptions): Server {
  const server = new Server(
    { name: "skillgate", title: "skillgate", version: VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: "skillgate serves Agent Skills. Call skill_list to see the skills, " +
        "skill_load to read one's instructions, and skill_file to read its files.",
    },
  );
  serveTools(server, TOOLS, { store, caps: options.caps, hosted: options.hosted });
  return server;
}
