/**
 * Test helper: a real skillgate server (every family, as `createSkillServer`
 * builds it) connected to the SDK client over an in-memory transport, on a
 * catalog store the test controls.
 *
 * @module
 */

import { parseCommandLine } from "../../../src/config/cli.ts";
import type { Config } from "../../../src/config/config.ts";
import { registerLiveServer } from "../../../src/mcp/live_servers.ts";
import type { Server } from "../../../src/mcp/sdk.ts";
import { createSkillServer } from "../../../src/mcp/server.ts";
import type { CatalogStore } from "../../../src/skills/catalog_store.ts";
import { looseRequest } from "../../support/loose_request.ts";
import { Client, InMemoryTransport } from "../../support/sdk_client.ts";

/** A connected pair; dispose it to close both ends. */
export interface InMemorySession extends AsyncDisposable {
  readonly client: Client;
  readonly server: Server;
  readonly config: Config;
  /** Sends a request the SDK does not know and returns its loose result. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Options of {@linkcode connectInMemory}. */
export interface ConnectOptions {
  /** Command-line flags after `serve /nowhere`, e.g. `["--tools=never"]`. */
  readonly flags?: readonly string[];
  /** The client's capabilities (e.g. `{extensions: {...}}`). */
  readonly clientCapabilities?: Record<string, unknown>;
  readonly isStateless?: boolean;
  /** Register the server as live (so refresh notifications reach it). @default false */
  readonly isLive?: boolean;
  /** Called with the client before it connects (to set notification handlers in time). */
  readonly beforeConnect?: (client: Client) => void;
}

/**
 * Builds the configuration `skillgate serve /nowhere FLAGS` would get.
 *
 * @param flags Flags after the root.
 * @returns The configuration.
 */
export function testConfig(flags: readonly string[] = []): Config {
  return parseCommandLine({
    args: ["serve", "/nowhere", ...flags],
    getEnv: () => undefined,
    cwd: "/",
  });
}

/**
 * Connects the SDK client to a skillgate server over an in-memory transport.
 *
 * @param store The store the server answers from.
 * @param options Flags, client capabilities, statelessness, liveness.
 * @returns The session.
 */
export async function connectInMemory(
  store: CatalogStore,
  options: ConnectOptions = {},
): Promise<InMemorySession> {
  const config = testConfig(options.flags);
  const server = createSkillServer({
    store,
    config,
    ...(options.isStateless === undefined ? {} : { isStateless: options.isStateless }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: "skillgate-tests", version: "1.0.0" },
    { capabilities: (options.clientCapabilities ?? {}) as never },
  );
  options.beforeConnect?.(client);
  await server.connect(serverSide);
  if (options.isLive === true) registerLiveServer(server);
  await client.connect(clientSide);
  return {
    client,
    server,
    config,
    request: (method, params) => looseRequest(client, method, params),
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  };
}
