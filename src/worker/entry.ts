/**
 * The worker's entry module: receives the frozen configuration, starts from
 * the trusted part's start-up catalog (or builds it, reading only inside the
 * roots, when none came), and serves MCP over stdio or HTTP. This
 * module and everything it imports run with the narrowed permission set
 * computed by `src/sandbox/worker_permissions.ts`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { Config } from "../config/config.ts";
import { createSkillServer } from "../mcp/server.ts";
import { installFdLocator } from "../files/fd_location.ts";
import { createFdLocateClient } from "../sandbox/fd_locate_client.ts";
import { createGroupKillClient } from "../sandbox/group_kill_client.ts";
import type {
  ExitMessage,
  ReadyMessage,
  ShutdownMessage,
  StartMessage,
} from "../sandbox/messages.ts";
import type { ScriptHostFacts } from "../scripts/host_facts.ts";
import { createScriptService } from "../scripts/service.ts";
import { adoptCatalog } from "../skills/adopt_catalog.ts";
import { skillLoadsSoFar } from "../skills/_load_skill.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { createCatalogStore } from "../skills/catalog_store.ts";
import { serveOverStdio } from "../transports/stdio.ts";
import { serveOverHttp } from "../transports/http/serve.ts";
import { registerLiveServer } from "../mcp/live_servers.ts";
import { startConfiguredRefresh } from "../refresh/live_refresh.ts";
import { summariseProblems } from "./summary.ts";

/** Aborted when the trusted part relays SIGTERM/SIGINT (a `shutdown` message). */
const shutdownRequested = new AbortController();

// The path gate's exact check asks the trusted part where an opened file really is.
installFdLocator(createFdLocateClient(self));

self.onmessage = (event: MessageEvent<StartMessage | ShutdownMessage>) => {
  if (event.data?.type === "shutdown") return shutdownRequested.abort();
  if (event.data?.type !== "start") return;
  const serve = event.data.config.options.http === null ? serveStdio : serveHttp;
  serve(event.data.config, event.data.scripts, event.data.catalog).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    post({ type: "exit", code: 1, message: `Could not start serving: ${message}` });
  });
};

/**
 * The first snapshot, and how many skill folders this worker loaded for it:
 * the trusted part's start-up catalog when the start message carried one
 * (nothing is read again; live refresh continues from it), else one built here.
 */
async function firstCatalog(
  config: Config,
  handed: Catalog | undefined,
): Promise<{ catalog: Catalog; skillLoads: number }> {
  const catalog = handed === undefined
    ? await buildCatalog(config.roots, config.caps)
    : adoptCatalog(handed);
  return { catalog, skillLoads: skillLoadsSoFar() };
}

async function serveStdio(
  config: Config,
  facts: ScriptHostFacts | undefined,
  handed: Catalog | undefined,
): Promise<void> {
  const { catalog, skillLoads } = await firstCatalog(config, handed);
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
  post({ type: "ready", ...summariseProblems(catalog), skillLoads });
  const ended = await closed;
  await refresh?.close();
  // Non-zero when a message over the read buffer closed the session (stdio.ts logged why).
  post({ type: "exit", code: ended.exitCode });
}

/**
 * Serves Streamable HTTP (`--http`): the listener is up (and `/healthz`
 * answers) while the catalog loads; each session gets its own server over
 * the same store. A `shutdown` message drains it, then the worker exits 0.
 */
async function serveHttp(
  config: Config,
  facts: ScriptHostFacts | undefined,
  handed: Catalog | undefined,
): Promise<void> {
  const loading = firstCatalog(config, handed);
  const store = loading.then((first) => createCatalogStore(first.catalog));
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
  const first = await loading;
  post({ type: "ready", ...summariseProblems(first.catalog), skillLoads: first.skillLoads });
  await service.finished;
  await refresh?.close();
  post({ type: "exit", code: 0 });
}

function post(message: ReadyMessage | ExitMessage): void {
  self.postMessage(message);
}
