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
import { createGroupKillClient } from "../sandbox/group_kill_client.ts";
import type {
  ExitMessage,
  ReadyMessage,
  ShutdownMessage,
  StartMessage,
} from "../sandbox/messages.ts";
import type { ScriptHostFacts } from "../scripts/host_facts.ts";
import { createScriptService } from "../scripts/service.ts";
import { buildCatalog } from "../skills/catalog.ts";
import { createCatalogStore } from "../skills/catalog_store.ts";
import { serveOverStdio } from "../transports/stdio.ts";
import { serveOverHttp } from "../transports/http/serve.ts";
import { registerLiveServer } from "../mcp/live_servers.ts";
import { startConfiguredRefresh } from "../refresh/live_refresh.ts";
import { summariseProblems } from "./summary.ts";

/** Aborted when the trusted part relays SIGTERM/SIGINT (a `shutdown` message). */
const shutdownRequested = new AbortController();

self.onmessage = (event: MessageEvent<StartMessage | ShutdownMessage>) => {
  if (event.data?.type === "shutdown") return shutdownRequested.abort();
  if (event.data?.type !== "start") return;
  const serve = event.data.config.options.http === null ? serveStdio : serveHttp;
  serve(event.data.config, event.data.scripts).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    post({ type: "exit", code: 1, message: `Could not start serving: ${message}` });
  });
};

async function serveStdio(config: Config, facts: ScriptHostFacts | undefined): Promise<void> {
  const catalog = await buildCatalog(config.roots, config.caps);
  const store = createCatalogStore(catalog);
  const scripts = facts === undefined
    ? undefined
    : createScriptService(config, facts, { killer: createGroupKillClient(self) });
  const server = createSkillServer({
    store,
    config,
    ...(scripts === undefined ? {} : { scripts }),
  });
  const { closed } = await serveOverStdio(server);
  registerLiveServer(server);
  const refresh = await startConfiguredRefresh(store, config);
  post({ type: "ready", ...summariseProblems(catalog) });
  await closed;
  await refresh?.close();
  post({ type: "exit", code: 0 });
}

/**
 * Serves Streamable HTTP (`--http`): the listener is up (and `/healthz`
 * answers) while the catalog loads; each session gets its own server over
 * the same store. A `shutdown` message drains it, then the worker exits 0.
 */
async function serveHttp(config: Config, facts: ScriptHostFacts | undefined): Promise<void> {
  const loading = buildCatalog(config.roots, config.caps);
  const store = loading.then(createCatalogStore);
  const scripts = facts === undefined
    ? undefined
    : createScriptService(config, facts, { killer: createGroupKillClient(self) });
  const service = serveOverHttp(config, {
    store,
    createServer: (current, { isStateless }) =>
      createSkillServer({
        store: current,
        config,
        isStateless,
        ...(scripts === undefined ? {} : { scripts }),
      }),
    signal: shutdownRequested.signal,
    ...(scripts === undefined ? {} : { stopWork: () => scripts.stopAll() }),
  });
  const refresh = await startConfiguredRefresh(await store, config);
  post({ type: "ready", ...summariseProblems(await loading) });
  await service.finished;
  await refresh?.close();
  post({ type: "exit", code: 0 });
}

function post(message: ReadyMessage | ExitMessage): void {
  self.postMessage(message);
}
