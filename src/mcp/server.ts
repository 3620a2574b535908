/**
 * Builds the MCP server over a catalog store: server info, instructions, and
 * every method family's capabilities and handlers. Transport-agnostic: stdio
 * and each HTTP session get a server of the same shape, answering from the
 * same catalog snapshot.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import type { MethodFamily, ServerContext } from "./family.ts";
import { Server, type ServerCapabilities } from "./sdk.ts";
import { toolsFamily } from "./tools_handler.ts";
import { skillsExtensionFamily } from "./skills_extension/skills_extension.ts";
import { serverInstructions } from "./model_catalog/model_catalog.ts";
import { fitInstructionsToClient } from "./model_catalog/client_instructions.ts";
import { resourcesFamily } from "./resources/resources_family.ts";
import { promptsFamily } from "./prompts/prompts_family.ts";
import { completionsFamily } from "./completions/completions_family.ts";
import { loggingFamily } from "./logging/logging_family.ts";
import { sdkCacheHints } from "./cache_hints.ts";
import { LEGACY_PROTOCOL_VERSIONS } from "./protocol_versions.ts";
import { answerMalformedParamsAsInvalid } from "./invalid_params.ts";
import { waitForOwnerFiles } from "./owner_files_wait.ts";

/** The families served, in installation order. Add a family here, once. */
export const FAMILIES: readonly MethodFamily[] = Object.freeze([
  toolsFamily,
  resourcesFamily,
  promptsFamily,
  completionsFamily,
  skillsExtensionFamily,
  loggingFamily,
]);

/**
 * Creates an MCP server answering from `context.store`.
 *
 * @param context The catalog store and configuration.
 * @returns A server ready to `connect()` to a transport; its `instructions`
 *   are the preamble (naming only the loading tools this client is offered)
 *   and, per `--catalog`, the catalog of the current snapshot.
 */
export function createSkillServer(context: ServerContext): Server {
  const capabilities: ServerCapabilities = {};
  for (const family of FAMILIES) {
    const added = family.capabilities(context) as Record<string, unknown>;
    const target = capabilities as Record<string, unknown>;
    for (const [key, value] of Object.entries(added)) {
      const existing = target[key];
      target[key] = typeof existing === "object" && existing !== null && typeof value === "object"
        ? { ...existing, ...value }
        : value;
    }
  }
  const server = new Server(
    { name: "skillgate", title: "skillgate", version: VERSION },
    {
      capabilities,
      instructions: serverInstructions(
        context.config,
        context.store.current(),
        context.catalogLoading,
      ),
      // ttlMs/cacheScope of 2026-07-28 answers (values and reasons: cache_hints.ts).
      cacheHints: sdkCacheHints(context.config),
      // What initialize negotiates (and a 2025-era header may name): protocol_versions.ts.
      supportedProtocolVersions: [...LEGACY_PROTOCOL_VERSIONS],
    },
  );
  // Before any handler: malformed params of a spec method are -32602, not -32603.
  answerMalformedParamsAsInvalid(server);
  // Every family's method waits until the owner's files were read once (r17, hB-1).
  if (context.ownerFilesRead !== undefined) waitForOwnerFiles(server, context.ownerFilesRead);
  for (const family of FAMILIES) family.install(server, context);
  // A skills-extension client under --tools=auto is told how it loads skills (not skill_load).
  fitInstructionsToClient(server, context);
  return server;
}
