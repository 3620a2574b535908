/**
 * The worker's entry module: receives the frozen configuration, builds the
 * catalog (reading only inside the roots), and serves MCP over stdio. This
 * module and everything it imports run with the narrowed permission set
 * computed by `src/sandbox/worker_permissions.ts`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { Config } from "../config/config.ts";
import { createSkillServer } from "../mcp/server.ts";
import type { ExitMessage, ReadyMessage, StartMessage } from "../sandbox/messages.ts";
import { buildCatalog } from "../skills/catalog.ts";
import { createCatalogStore } from "../skills/catalog_store.ts";
import { serveOverStdio } from "../transports/stdio.ts";
import { summariseProblems } from "./summary.ts";

self.onmessage = (event: MessageEvent<StartMessage>) => {
  if (event.data?.type !== "start") return;
  serveStdio(event.data.config).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    post({ type: "exit", code: 1, message: `Could not start serving: ${message}` });
  });
};

async function serveStdio(config: Config): Promise<void> {
  const catalog = await buildCatalog(config.roots, config.caps);
  const store = createCatalogStore(catalog);
  const server = createSkillServer({ store, config });
  const { closed } = await serveOverStdio(server);
  post({ type: "ready", ...summariseProblems(catalog) });
  await closed;
  post({ type: "exit", code: 0 });
}

function post(message: ReadyMessage | ExitMessage): void {
  self.postMessage(message);
}
