/**
 * A method family: one concern of the MCP surface (tools, resources, prompts,
 * the skills extension...) that declares its capabilities and installs its
 * request handlers on a server. `src/mcp/server.ts` lists the families; each
 * lives in its own folder under `src/mcp/`.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { ScriptService } from "../scripts/service.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { OverrideWriter } from "../sandbox/override_write_client.ts";
import type { OwnerFilesRead } from "./owner_files_wait.ts";
import type { Server, ServerCapabilities } from "./sdk.ts";

/** What every family may use when it installs its handlers. */
export interface ServerContext {
  readonly store: CatalogStore;
  readonly config: Config;
  /**
   * True for a server that answers one stateless HTTP request and is gone:
   * nothing it learns at `initialize` outlives the request (`--tools=auto`
   * then acts as `always`), and it sends no notifications. @default false
   */
  readonly isStateless?: boolean;
  /**
   * The protocol era this server serves: `legacy` (2025-11-25 and earlier,
   * through `initialize`) or `modern` (2026-07-28, per-request `_meta`
   * envelope). @default "legacy"
   */
  readonly era?: "legacy" | "modern";
  /** Script running for `skill_run`; absent where this server runs no scripts. */
  readonly scripts?: ScriptService;
  /**
   * Set when the server was created before the catalog was complete (a large
   * catalog over stdio, issue 13): the instructions then say it is loading,
   * and requests that read it wait for it (`src/transports/stdio.ts`). @default none
   */
  readonly catalogLoading?: { readonly skillFolders: number };
  /**
   * Asks the trusted part to set one override switch (a settings view's
   * write); absent where nothing may be written (tests, probes).
   */
  readonly writeOverride?: OverrideWriter;
  /**
   * Whether the owner's files were read since the start, and a wait for it
   * (the worker's `owner_files_gate.ts`, review r17 hB-1): every family's
   * method waits for it (`owner_files_wait.ts`). Absent: nothing to wait for
   * (no owner files watched, tests).
   */
  readonly ownerFilesRead?: OwnerFilesRead;
}

/** One family of MCP methods. */
export interface MethodFamily {
  /** A name for logs and tests, e.g. `tools`. */
  readonly name: string;
  /** Capabilities this family adds (merged shallowly per top-level key). */
  capabilities(context: ServerContext): ServerCapabilities;
  /** Registers request handlers (and notification senders) on `server`. */
  install(server: Server, context: ServerContext): void;
}
