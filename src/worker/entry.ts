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
  serve(event.data).catch((error: unknown) => {
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

/**
 * Serves the start message's configuration until the session ends: stdio
 * (one server, connected once the catalog is loaded) or Streamable HTTP
 * (`--http`: the listener is up, and `/healthz` answers, while the catalog
 * loads; each session gets its own server over the same store; a `shutdown`
 * message drains it). Posts `ready` once serving with the catalog loaded,
 * then `exit` when the session is over, after stopping any script still
 * running (stdio's drain may end with a run in flight).
 */
async function serve(start: StartMessage): Promise<void> {
  const config = start.config;
  const scripts = start.scripts === undefined
    ? undefined
    : createScriptService(config, start.scripts, { killer: createGroupKillClient(self) });
  const withScripts = scripts === undefined ? {} : { scripts };
  const loading = firstCatalog(config, start.catalog);
  const store = loading.then((first) => createCatalogStore(first.catalog));
  let ended: Promise<number>;
  let refresh: Awaited<ReturnType<typeof startConfiguredRefresh>>;
  if (config.options.http === null) {
    // Watch before answering `initialize`: an edit a client makes right after connecting is seen.
    refresh = await startConfiguredRefresh(await store, config);
    const server = createSkillServer({ store: await store, config, ...withScripts });
    const { closed } = await serveOverStdio(server);
    registerLiveServer(server);
    // Non-zero when a message over the read buffer closed the session (stdio.ts logged why).
    ended = closed.then((end) => end.exitCode);
  } else {
    const service = serveOverHttp(config, {
      store,
      createServer: (current, { isStateless }) =>
        createSkillServer({ store: current, config, isStateless, ...withScripts }),
      signal: shutdownRequested.signal,
      ...(scripts === undefined ? {} : { stopWork: () => scripts.stopAll() }),
    });
    ended = service.finished.then(() => 0);
    refresh = await startConfiguredRefresh(await store, config);
  }
  const first = await loading;
  post({ type: "ready", ...summariseProblems(first.catalog), skillLoads: first.skillLoads });
  const code = await ended;
  await refresh?.close();
  await scripts?.stopAll();
  post({ type: "exit", code });
}

function post(message: ReadyMessage | ExitMessage): void {
  self.postMessage(message);
}
