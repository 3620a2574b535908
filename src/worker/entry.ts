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
import { createOverrideWriteClient } from "../sandbox/override_write_client.ts";
import type {
  ExitMessage,
  OverlayMessage,
  ReadyMessage,
  RemoteRootsMessage,
  ShutdownMessage,
  StartMessage,
} from "../sandbox/messages.ts";
import { applyOwnerUpdate, createLiveCaps, type LiveCaps } from "./overlay.ts";
import type { LiveRefresh } from "../refresh/live_refresh.ts";
import { createRemoteRootsHandler } from "../refresh/remote_roots_refresh.ts";
import { createScriptService } from "../scripts/service.ts";
import { adoptCatalog } from "../skills/adopt_catalog.ts";
import { skillLoadsSoFar } from "../skills/_load_skill.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { Catalog } from "../skills/skill.ts";
import { type CatalogStore, createCatalogStore } from "../skills/catalog_store.ts";
import { warmSearchIndex } from "../search/search_skills.ts";
import { serveOverStdio } from "../transports/stdio.ts";
import { serveOverHttp } from "../transports/http/serve.ts";
import { registerLiveServer } from "../mcp/live_servers.ts";
import { startConfiguredRefresh } from "../refresh/live_refresh.ts";
import { summariseProblems } from "./summary.ts";

/** Aborted when the trusted part relays SIGTERM/SIGINT (a `shutdown` message). */
const shutdownRequested = new AbortController();

// The path gate's exact check asks the trusted part where an opened file really is.
installFdLocator(createFdLocateClient(self));

/**
 * The owner's live changes: what `overlay` messages need (set once serving),
 * and the latest message that arrived before that.
 */
const owner: {
  context: { store: CatalogStore; config: Config; caps: LiveCaps } | null;
  refresh: LiveRefresh | null;
  /** Set once live refresh runs (or `--static` left it off): changes apply at once from then. */
  isLive: boolean;
  pending: OverlayMessage | null;
} = { context: null, refresh: null, isLive: false, pending: null };

/** Set once serving: applies the trusted part's new remote roots. */
let onRemoteRoots: ((roots: RemoteRootsMessage["roots"]) => void) | null = null;
let pendingRemoteRoots: RemoteRootsMessage["roots"] | null = null;

self.onmessage = (
  event: MessageEvent<StartMessage | ShutdownMessage | OverlayMessage | RemoteRootsMessage>,
) => {
  if (event.data?.type === "shutdown") return shutdownRequested.abort();
  if (event.data?.type === "remote-roots") {
    if (onRemoteRoots === null) pendingRemoteRoots = event.data.roots;
    else onRemoteRoots(event.data.roots);
    return;
  }
  if (event.data?.type === "overlay") {
    if (owner.context === null || !owner.isLive) owner.pending = event.data;
    else applyOwnerUpdate(event.data, { ...owner.context, refresh: owner.refresh });
    return;
  }
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
  // Caps are read through a live view: a live edit of the configuration file may lower them.
  const caps = createLiveCaps(start.config.caps);
  const config: Config = { ...start.config, caps: caps.view };
  const scripts = start.scripts === undefined
    ? undefined
    : createScriptService(config, start.scripts, { killer: createGroupKillClient(self) });
  const withScripts = {
    ...(scripts === undefined ? {} : { scripts }),
    // A settings view's writes go to the trusted part; the worker cannot write overrides.json.
    writeOverride: createOverrideWriteClient(self),
  };
  const loading = firstCatalog(config, start.catalog);
  const store = loading.then((first) => {
    const created = createCatalogStore(first.catalog, start.overlay);
    owner.context = { store: created, config, caps };
    return created;
  });
  let ended: Promise<number>;
  let refresh: Awaited<ReturnType<typeof startConfiguredRefresh>>;
  if (config.options.http === null) {
    // Watch before answering `initialize`: an edit a client makes right after connecting is seen.
    refresh = await startConfiguredRefresh(await store, config);
    const current = await store;
    // One dual-era connection: the server is built on the first message, told its era.
    const { closed } = await serveOverStdio(({ era }) => {
      const server = createSkillServer({ store: current, config, era, ...withScripts });
      registerLiveServer(server);
      return server;
    });
    // Non-zero when a message over the read buffer closed the session (stdio.ts logged why).
    ended = closed.then((end) => end.exitCode);
  } else {
    const service = serveOverHttp(config, {
      store,
      createServer: (current, info) =>
        createSkillServer({ store: current, config, ...info, ...withScripts }),
      signal: shutdownRequested.signal,
      ...(scripts === undefined ? {} : { stopWork: () => scripts.stopAll() }),
    });
    ended = service.finished.then(() => 0);
    refresh = await startConfiguredRefresh(await store, config);
  }
  owner.refresh = refresh;
  owner.isLive = true;
  // A change that arrived while the catalog loaded applies now, with its notifications.
  const pending = owner.pending;
  owner.pending = null;
  if (pending !== null) applyOwnerUpdate(pending, { ...owner.context!, refresh });
  onRemoteRoots = createRemoteRootsHandler(await store, config);
  if (pendingRemoteRoots !== null) onRemoteRoots(pendingRemoteRoots);
  const first = await loading;
  // What is served: the overlay (overrides.json) applied, as skill_list and `list` show it.
  post({ type: "ready", ...summariseProblems(await store), skillLoads: first.skillLoads });
  // skill_search's index, built in the background (time-sliced) so the first search is fast.
  warmSearchIndex(await store).catch((error: unknown) => {
    console.error("skillgate: could not build the search index:", error);
  });
  const code = await ended;
  // Not close(): closing a watcher stuck on a FIFO would block this thread for good.
  refresh?.abandon();
  await scripts?.stopAll();
  post({ type: "exit", code });
}

function post(message: ReadyMessage | ExitMessage): void {
  self.postMessage(message);
}
