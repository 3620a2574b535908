/**
 * The worker's entry module: receives the frozen configuration, builds the
 * catalog (the only place it is built; reading only inside the roots, every
 * SKILL.md through the gated open), and serves MCP over stdio or HTTP. This
 * module and everything it imports run with the narrowed permission set
 * computed by `src/sandbox/worker_permissions.ts`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { Config } from "../config/config.ts";
import { createSkillServer } from "../mcp/server.ts";
import { installFdLocator } from "../files/fd_location.ts";
import { installFolderPathReader, installFolderReader } from "../files/fd_listing.ts";
import {
  createFdLocateClient,
  createFolderPathReadClient,
  createFolderReadClient,
} from "../sandbox/fd_locate_client.ts";
import { createEnvReleaseClient } from "../sandbox/env_release_client.ts";
import { createGroupKillClient } from "../sandbox/group_kill_client.ts";
import { createOverrideWriteClient } from "../sandbox/override_write_client.ts";
import type {
  AnsweredMessage,
  ExitMessage,
  IsolationMessage,
  IsolationWantedMessage,
  OverlayMessage,
  OwnerCurrentMessage,
  OwnerUnreadMessage,
  OwnerWantedMessage,
  ReadyMessage,
  RemoteRootsMessage,
  ShutdownMessage,
  StartMessage,
} from "../sandbox/messages.ts";
import { applyOwnerUpdate, createLiveCaps, type LiveCaps } from "./overlay.ts";
import { createOwnerFilesGate } from "./owner_files_gate.ts";
import type { LiveRefresh } from "../refresh/live_refresh.ts";
import { createRemoteRootsHandler } from "../refresh/remote_roots_refresh.ts";
import { loadSkill, skillLoadsSoFar } from "../skills/_load_skill.ts";
import { buildCatalog } from "../skills/catalog.ts";
import { estimateSkillFolders } from "../skills/folder_estimate.ts";
import { openIndexCache } from "../skills/index_cache.ts";
import { attachIndexCache } from "../mcp/skills_extension/digest_cache.ts";
import { createDigestHelper, type DigestHelper } from "../mcp/skills_extension/digest_helper.ts";
import { sharedDigestCache } from "../mcp/skills_extension/skills_extension.ts";
import { type CatalogStore, createCatalogStore } from "../skills/catalog_store.ts";
import { warmSearchIndex } from "../search/search_lazy.ts";
import { primeStdin, serveOverStdio } from "../transports/stdio.ts";
import { registerLiveServer } from "../mcp/live_servers.ts";
import { startConfiguredRefresh } from "../refresh/live_refresh.ts";
import { skillsChangedSince } from "../refresh/catch_up.ts";
import type { Catalog } from "../skills/skill.ts";
import { DEFAULT_SLICE_MS, noteClientRequest } from "../skills/_time_slice.ts";
import { summariseProblems } from "./summary.ts";
import { HEAP_RELEASE_MIN_SKILLS, releaseBuildHeap, releaseStartupHeap } from "./heap_release.ts";

/**
 * Skill folders from which, over stdio, `initialize` is answered before the
 * catalog is loaded (issue 13: at this size the model catalog in the
 * instructions is cut to its budget anyway). Smaller catalogs load first, so
 * their instructions list the skills.
 */
const EARLY_ANSWER_MIN_SKILLS = 1_000;

/**
 * How long a large catalog's build waits for the early `initialize` answer to
 * go out before it starts anyway (no `initialize` came), in ms.
 */
const BUILD_AFTER_EARLY_ANSWER_MS = 100;

/**
 * Skill folders from which the first build's files are hashed in the digest
 * isolate, on the second core, while the build goes on (issue 13: at 10,000
 * skills ~30,000 reads and hashes came after the build on one core).
 * Smaller catalogs hash in the worker: an isolate costs start-up and memory
 * (~10 MiB) that a few hundred files do not repay.
 */
const DIGEST_ISOLATE_MIN_SKILLS = 1_000;

/**
 * Skill loads in flight in the first build: each waits for its listing from the digest isolate
 * when one is used, so with 16 skills a listing job (`LIST_BATCH_SKILLS`) this lets the isolate
 * be two jobs ahead (`LIST_JOBS_AHEAD`) while this thread still has batches to list itself
 * (s9-h4; 32 left it at most two, so the worker waited whenever the isolate was behind).
 */
const FIRST_BUILD_CONCURRENCY = 64;

/** How long requests must pause before the search index is built in the background, in ms. */
const SEARCH_WARM_QUIET_MS = 300;

/**
 * How background work (the search index's build, the catch-up rescan) gives
 * way to a client's requests once it runs (issue 13: a full `skills/list`
 * right after start-up shared its turns with them): each pause waits until
 * no request came for 50 ms (a client paging asks again within a few ms; one
 * polling every 100 ms lets the work go on), at most 250 ms, so even a
 * steady stream of requests leaves the work a turn in every ~25.
 */
const BACKGROUND_GIVE_WAY = { quietMs: 50, maxWaitMs: 250 } as const;

/** The pause in requests the watcher's set-up waits for after an early answer, in ms. */
const WATCH_QUIET_MS = 100;

/**
 * Longest the watcher and the catch-up rescan after an early `initialize`
 * answer wait for requests to pause once the catalog is complete, in ms:
 * edits are seen within this (plus the rescan) even under a steady stream
 * of requests.
 */
const CATCH_UP_MAX_WAIT_MS = 5_000;

/**
 * Resolves once no request arrived for `quietMs`, or the session is over,
 * or `maxWaitMs` passed.
 *
 * @param lastRequestMs When the last request arrived (`performance.now()`).
 * @param isOver Set once the session ended.
 * @param maxWaitMs Longest wait in ms. @default no limit
 * @param quietMs The pause in requests waited for, in ms. @default SEARCH_WARM_QUIET_MS
 */
async function whenQuiet(
  lastRequestMs: () => number,
  isOver: { readonly value: boolean },
  maxWaitMs = Number.POSITIVE_INFINITY,
  quietMs = SEARCH_WARM_QUIET_MS,
): Promise<void> {
  const untilMs = performance.now() + maxWaitMs;
  for (;;) {
    const waitMs = Math.min(lastRequestMs() + quietMs, untilMs) - performance.now();
    if (waitMs <= 0 || isOver.value) return;
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
  }
}

/**
 * `skillsChangedSince` over `catalog`, one skill at a time, with a turn of the
 * event loop after each `DEFAULT_SLICE_MS` of work: the whole check (a stat
 * and a folder read per folder) held the thread 0.7-1.1 s at 10,000 skills
 * here (s15 hY), in front of the requests an HTTP server answers from the
 * moment its catalog is complete. The turn is a timer, not `setImmediate`:
 * chained `setImmediate` turns left this worker's sockets unread, and
 * requests waited 0.4-0.8 s before the HTTP handler saw them (measured in
 * s15 hY; timers cost up to 4 ms each after nesting, a check of 10,000 skills
 * ~0.4 s more). An edit made during it is the watcher's (the watch is live
 * before it starts) or found by it.
 *
 * @param catalog The snapshot served (the build's result).
 * @param sinceMs When the build began, in ms since the epoch.
 * @returns Absolute skill folder paths, in catalog order (possibly none).
 *
 * Requires `--allow-read` on the roots (and linked skills' real folders).
 */
async function skillsChangedInSlices(catalog: Catalog, sinceMs: number): Promise<string[]> {
  const changed: string[] = [];
  let sliceStartMs = performance.now();
  for (const skill of catalog.skills) {
    if (performance.now() - sliceStartMs >= DEFAULT_SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStartMs = performance.now();
    }
    changed.push(...skillsChangedSince({ ...catalog, skills: [skill] }, sinceMs));
  }
  return changed;
}

/** How long after connecting the search index waits for a first answer to go out, in ms. */
const FIRST_ANSWER_GRACE_MS = 2_000;

/** Aborted when the trusted part relays SIGTERM/SIGINT (a `shutdown` message). */
const shutdownRequested = new AbortController();

// The path gate's exact check asks the trusted part where an opened file really is.
installFdLocator(createFdLocateClient(self));
// The file listing reads each folder through its descriptor, also by asking the trusted part.
installFolderReader(createFolderReadClient(self));
// ... or, first, by its real path: the trusted part opens it below the root, no link followed, and
// reads it only at exactly that path (folder_path_read.ts), so discovery and the listing open no
// descriptor here and a warm start never loads node:fs before its first answer (issue 13).
installFolderPathReader(createFolderPathReadClient(self));

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
  /**
   * A catalog cap went down while live but before the watcher was up (a small catalog's watch
   * starts after the first answer): the rebuild runs once it is.
   */
  isRebuildOwed: boolean;
  /** The trusted part read the owner's files (`owner-current`) before changes applied live. */
  isReadOwed: boolean;
} = {
  context: null,
  refresh: null,
  isLive: false,
  pending: null,
  isRebuildOwed: false,
  isReadOwed: false,
};

/**
 * Requests wait here for the owner's files read once (a start with `ownerPending`; r17 hB-1),
 * at most `OWNER_FILES_WAIT_MS` each (session 13, hA).
 */
const ownerFiles = createOwnerFilesGate(() => post({ type: "owner-wanted" }));

/** Set once the script service exists: puts the probed script facts in force. */
let onIsolation: ((message: IsolationMessage) => void) | null = null;
let pendingIsolation: IsolationMessage | null = null;

/** Set once serving: applies the trusted part's new remote roots. */
let onRemoteRoots: ((roots: RemoteRootsMessage["roots"]) => void) | null = null;
let pendingRemoteRoots: RemoteRootsMessage["roots"] | null = null;

self.onmessage = (
  event: MessageEvent<
    | StartMessage
    | ShutdownMessage
    | OverlayMessage
    | RemoteRootsMessage
    | IsolationMessage
    | OwnerCurrentMessage
    | OwnerUnreadMessage
  >,
) => {
  if (event.data?.type === "shutdown") return shutdownRequested.abort();
  if (event.data?.type === "isolation") {
    if (onIsolation === null) pendingIsolation = event.data;
    else onIsolation(event.data);
    return;
  }
  if (event.data?.type === "remote-roots") {
    if (onRemoteRoots === null) pendingRemoteRoots = event.data.roots;
    else onRemoteRoots(event.data.roots);
    return;
  }
  if (event.data?.type === "overlay") {
    if (owner.context === null || !owner.isLive) owner.pending = event.data;
    else if (applyOwnerUpdate(event.data, { ...owner.context, refresh: owner.refresh })) {
      if (owner.refresh === null) owner.isRebuildOwed = true;
    }
    return;
  }
  if (event.data?.type === "owner-current") {
    // Opened once every overlay before it is applied (one waiting while the catalog loads: then;
    // the wait's bound stops counting now, session 13 hA).
    if (owner.isLive) ownerFiles.open();
    else {
      ownerFiles.markRead();
      owner.isReadOwed = true;
    }
    return;
  }
  if (event.data?.type === "owner-unread") {
    // Fails closed: the waiting requests are refused (never served on start-up's overrides), the
    // next one asks again (session 13, hA).
    const files = event.data.files;
    ownerFiles.fail(Array.isArray(files) ? files.filter((name) => typeof name === "string") : []);
    return;
  }
  if (event.data?.type !== "start") return;
  serve(event.data).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // An address in use is a setting to change (exit 2, as a bad command line), not a fault.
    // The name is compared, not the class: the HTTP module stays out of a stdio worker's graph.
    const code = error instanceof Error && error.name === "ListenRefused" ? 2 : 1;
    post({ type: "exit", code, message: `Could not start serving: ${message}` });
  });
};

/**
 * The first snapshot, how many skill folders this worker loaded for it, and
 * the index cache (when configured it spares re-parsing unchanged SKILL.md
 * files). Below `HEAP_RELEASE_MIN_SKILLS` skills the cache is not written
 * yet: `serve` writes it once the first answer went out (issue 13: a cold
 * start's write is no part of that answer); from it on, it is written before
 * the heap is compacted (`isIndexCacheWritten`). A large COLD build (the
 * digest isolate was used) whose caller answers requests as they come
 * (`defersHousekeeping`: stdio answered `initialize` early) leaves both to
 * the caller (`housekeeping`): the client's first full `skills/list` comes
 * right after such a build, every page on this thread, and the write and the
 * compaction (~0.3-0.5 s of this thread at 10,000 skills, s9-h4) waited in
 * front of its first page. `estimatedFolders` (the roots' estimate, 0 when
 * none was made) of 1,000 or more with an index cache holding no parse starts
 * the digest isolate before discovery (s10-h8).
 */
async function firstCatalog(
  config: Config,
  onDiscovered: (skillFolders: number) => void,
  options: {
    readonly defersHousekeeping: boolean;
    readonly primesStdinWhenWarm: boolean;
    readonly estimatedFolders: number;
  },
) {
  // A watch set up after the build catches up from this moment (src/refresh/catch_up.ts).
  const builtFromMs = Date.now();
  const indexCache = openIndexCache(config.indexCacheDir, {
    rootsKey: config.roots.map((root) => root.path).join("\0"),
  });
  // Over stdio, a warm build (the cache holds parses) reads the first message while it loads: it
  // used to end before the transport's first read did, and the answer waited on that read. A
  // cold one does not: the message's parse would then run before its first located opens are
  // asked for, instead of while the trusted part answers them (issue 13, s9-h3 and s10-h9).
  if (options.primesStdinWhenWarm && indexCache.holdsAnyParse()) primeStdin();
  // skills/list digests of unchanged file versions come from the cache too (attached before the
  // build: the digest isolate is offered only files the cache cannot answer).
  attachIndexCache(config.indexCacheDir === null ? null : indexCache);
  // A large catalog's files are hashed on the second core while it is built (issue 13).
  const createHelper = (isCold: boolean) =>
    createDigestHelper(sharedDigestCache(), self, {
      // A warm start (SKILL.md parses answered by the index cache, digests with them) starts
      // no isolate and looks no digest up during the build; nor does a one-core machine. A
      // build known cold before it began needs no such look.
      ...(isCold ? {} : {
        isWorthStarting: () =>
          navigator.hardwareConcurrency >= 2 &&
          indexCache.stats.misses > indexCache.stats.hits,
      }),
      // This thread lists and hashes a batch itself whenever the isolate is two jobs
      // ahead (up to a quarter of the folders): the isolate was the cold build's critical
      // path, this thread asleep for a fifth of it (s9-h4).
      sharesListing: true,
    });
  // Known cold and large before discovery (the roots' estimate, an index cache holding no
  // parse): the isolate starts now, its start-up overlapping discovery, and lists from the
  // first skill loaded, not after 64 loads on this thread alone (s10-h8).
  let helper: DigestHelper | null = null;
  if (
    options.estimatedFolders >= DIGEST_ISOLATE_MIN_SKILLS &&
    navigator.hardwareConcurrency >= 2 && !indexCache.holdsAnyParse()
  ) {
    helper = createHelper(true);
    helper.startEarly();
  }
  const catalog = await buildCatalog(config.roots, config.caps, {
    indexCache,
    flushesIndexCache: false,
    concurrency: FIRST_BUILD_CONCURRENCY,
    onDiscovered: (count) => {
      if (count >= DIGEST_ISOLATE_MIN_SKILLS) helper ??= createHelper(false);
      else {
        // The estimate was over: a small catalog hashes in this thread.
        (helper as DigestHelper | null)?.close();
        helper = null;
      }
      onDiscovered(count);
    },
    onLoaded: (skill) => helper?.offer(skill),
    // Once the isolate is used, it lists each skill folder and hashes its files in one pass
    // while this thread reads and parses SKILL.md (issue 13); asked for before the load starts.
    load: (candidate, caps) =>
      loadSkill(candidate, caps, indexCache, {
        listedElsewhere: (helper as DigestHelper | null)?.listRemotely(candidate, caps)
          ?.catch(() => null) ?? null,
      }),
  });
  (helper as DigestHelper | null)?.finish();
  // A catalog large enough to be compacted below is written first: the write drops the build's
  // parse maps, which a compaction run before it keeps (a write after it left ~11 MiB more RSS
  // at 50,000 folders). From 1,000 skill folders `initialize` went out before the build
  // (EARLY_ANSWER_MIN_SKILLS), so the write is no part of the first answer there either.
  const isIndexCacheWritten = catalog.skills.length >= HEAP_RELEASE_MIN_SKILLS;
  // A large build's garbage sits in the old generation between the catalog's objects: compact
  // once, before the requests waiting for the catalog are answered (issue 13: RSS at 10,000),
  // unless the build was cold and the caller runs it once the first requests paused.
  const housekeeping = createBuildHousekeeping(
    isIndexCacheWritten ? indexCache : null,
    catalog.skills.length,
  );
  const wasIsolateUsed = helper !== null &&
    ((helper as DigestHelper).sent + (helper as DigestHelper).listed) > 0;
  if (!options.defersHousekeeping || !wasIsolateUsed) housekeeping.run();
  return {
    catalog,
    skillLoads: skillLoadsSoFar(),
    indexCache,
    isIndexCacheWritten,
    builtFromMs,
    housekeeping,
  };
}

/** A large first build's index cache write and heap compaction, run once (`firstCatalog`). */
interface BuildHousekeeping {
  /** Whether it has not run yet. */
  readonly isOwed: boolean;
  /**
   * Writes the index cache (when this build writes it) and compacts the heap, once; later calls
   * do nothing.
   *
   * @param compacts False skips the compaction (the session is over). @default true
   */
  run(compacts?: boolean): void;
}

/**
 * The write before the compaction: the write drops the build's parse maps, which a compaction
 * run before it keeps (a write after it left ~11 MiB more RSS at 50,000 folders).
 */
function createBuildHousekeeping(
  written: { flush(): void } | null,
  skillCount: number,
): BuildHousekeeping {
  let isOwed = true;
  return {
    get isOwed() {
      return isOwed;
    },
    run(compacts = true) {
      if (!isOwed) return;
      isOwed = false;
      written?.flush();
      if (compacts) releaseBuildHeap(skillCount);
    },
  };
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
    // Loaded only when the grant can let a script run: a catalog served without runs answers
    // `initialize` without the runner's planning, grant and confirmation modules (issue 13).
    : (await import("../scripts/service.ts")).createScriptService(config, start.scripts, {
      killer: createGroupKillClient(self),
      releaseEnv: createEnvReleaseClient(self),
      // The isolation is probed after the first answer (nothing may run): a tool call before
      // that asks for it now.
      ...(start.isolationPending === true
        ? { pending: { ask: () => post({ type: "isolation-wanted" }) } }
        : {}),
    });
  if (scripts !== undefined) {
    onIsolation = (message) => scripts.settle(message.scripts);
    if (pendingIsolation !== null) onIsolation(pendingIsolation);
    pendingIsolation = null;
  }
  const withScripts = {
    ...(scripts === undefined ? {} : { scripts }),
    // A settings view's writes go to the trusted part; the worker cannot write overrides.json.
    writeOverride: createOverrideWriteClient(self),
    ...(start.ownerPending === true ? { ownerFilesRead: ownerFiles } : {}),
  };
  // A large catalog over stdio: `initialize` is answered before the catalog is loaded (everything
  // else waits for it). Usually one stat per root tells (issue 13: a walk of 10,000 folders took
  // ~300 ms); then the build starts once that answer went out, so it does not delay it. Groups of
  // skills are only counted by the walk, so a catalog the estimate misses is still answered early
  // once discovery counted its skill folders.
  const estimated = config.options.http !== null ? 0 : estimateSkillFolders(config.roots);
  const isEarlyByEstimate = estimated >= EARLY_ANSWER_MIN_SKILLS;
  let startBuild = () => {};
  const buildStarts = isEarlyByEstimate
    ? new Promise<void>((resolve) => {
      const fallback = setTimeout(resolve, BUILD_AFTER_EARLY_ANSWER_MS);
      startBuild = () => {
        clearTimeout(fallback);
        resolve();
      };
    })
    : Promise.resolve();
  let discovered: (skillFolders: number) => void = () => {};
  const discovery = new Promise<number>((resolve) => (discovered = resolve));
  const loading = buildStarts.then(() =>
    firstCatalog(config, (count) => discovered(count), {
      // Over stdio a large catalog answers `initialize` early and its build is cold or warm; a
      // cold one's write and compaction wait for the first requests to pause (below).
      defersHousekeeping: config.options.http === null,
      primesStdinWhenWarm: config.options.http === null,
      estimatedFolders: estimated,
    })
  );
  const earlyFolders = config.options.http !== null
    ? null
    : isEarlyByEstimate
    ? estimated
    : await Promise.race([
      discovery.then((count) => count >= EARLY_ANSWER_MIN_SKILLS ? count : null),
      loading.then(() => null),
    ]);
  const early = earlyFolders === null
    ? null
    : createCatalogStore(await buildCatalog([], config.caps), start.overlay);
  const store = loading.then((first) => {
    const created = early ?? createCatalogStore(first.catalog, start.overlay);
    if (early !== null) early.swap(first.catalog);
    owner.context = { store: created, config, caps };
    return created;
  });
  let ended: Promise<number>;
  let refresh: Awaited<ReturnType<typeof startConfiguredRefresh>> = null;
  // The search index is built after the first answer went out (issue 13): over stdio once the
  // first response is written (or after a grace period), over HTTP at once.
  let firstAnswered: Promise<void> = Promise.resolve();
  // Over stdio the search index waits for a pause in requests too: a client paging through a
  // large catalog right after connecting does not share the gate with 10,000 body reads.
  let lastRequestMs = Number.NEGATIVE_INFINITY;
  // Requests received and not answered yet (a cancelled one is never answered: the waits that
  // use this have a ceiling).
  let requestsInFlight = 0;
  // The watcher starts after the catalog was built (it plans from it), and each start is
  // followed by a catch-up check so an edit made before the watch was live, a client's right
  // after connecting too, is still seen: over stdio a large catalog answered early watches once it
  // is complete and then rescans its roots; a small one watches once its first answer went out
  // (issue 13: the watch's 3-8 ms left that answer's path), then rescans its roots and reloads
  // the skills whose folders changed since the build began (src/refresh/catch_up.ts). Over HTTP
  // the catalog is served once complete and watched right after, with the small one's catch-up.
  let isWatchAfterAnswer = false;
  /**
   * From now on the owner's changes apply at once: the one that arrived while the catalog loaded
   * applies now, with its notifications, and the owner-files gate opens if its read came. With no
   * watcher yet (`current` null), a lowered cap leaves a rebuild owed to the watcher's start.
   * Called once the catalog is complete; later calls only record the watcher.
   */
  const goLive = (current: LiveRefresh | null) => {
    owner.refresh = current;
    if (owner.isLive) return;
    owner.isLive = true;
    const pending = owner.pending;
    owner.pending = null;
    if (pending !== null && applyOwnerUpdate(pending, { ...owner.context!, refresh: current })) {
      if (current === null) owner.isRebuildOwed = true;
    }
    if (owner.isReadOwed) ownerFiles.open();
  };
  /**
   * Starts the watcher over `served` (a late watch: after the build, which it plans from) and
   * returns it (null: none), then in the background either the fresh rebuild a cap the owner
   * lowered before the watch owes (it reuses nothing, so it also sees every edit made before the
   * watch was live), or the catch-up (src/refresh/catch_up.ts): the roots rescanned and every skill whose folders changed
   * since the build began loaded again. A file added in a skill's sub-folder shows only in that
   * folder's times, so a roots-only rescan missed it (s15: a large stdio catalog, and HTTP).
   * The same for every path: a small stdio catalog after its first answer, a large one once
   * requests paused, HTTP once complete.
   */
  const watchAndCatchUp = async (served: CatalogStore, builtFromMs: number) => {
    const watching = await startConfiguredRefresh(served, config, self, start.rootRealPaths);
    owner.refresh = watching;
    if (watching === null) return watching;
    if (owner.isRebuildOwed) {
      owner.isRebuildOwed = false;
      watching.rebuildAll().catch((error: unknown) => {
        console.error("skillgate: could not rebuild the catalog with the lowered caps:", error);
      });
      return watching;
    }
    void skillsChangedInSlices(served.base(), builtFromMs).then((changed) =>
      watching.refresh([...config.roots.map((root) => root.path), ...changed], {
        giveWay: BACKGROUND_GIVE_WAY,
      })
    ).catch((error: unknown) => {
      console.error("skillgate: could not catch up with edits made before the watch:", error);
    });
    return watching;
  };
  if (config.options.http === null) {
    // A small catalog's transport is connected while the catalog loads (issue 13: its set-up and
    // the first read overlap the build's waits); every message, `initialize` too, is held until
    // the catalog is loaded, so the answer is the same as when connected after.
    let current: CatalogStore | null = early;
    isWatchAfterAnswer = early === null;
    const loadedToServe = early !== null ? Promise.resolve() : store.then((loaded) => {
      current = loaded;
    });
    let answered = () => {};
    firstAnswered = new Promise((resolve) => {
      const grace = setTimeout(resolve, FIRST_ANSWER_GRACE_MS);
      answered = () => {
        clearTimeout(grace);
        resolve();
      };
    });
    // One dual-era connection: the server is built on the first message, told its era.
    let isComplete = false;
    const complete = store.then(() => {
      isComplete = true;
    });
    const { closed } = await serveOverStdio(({ era }) => {
      const loadingNote = isComplete || earlyFolders === null
        ? {}
        : { catalogLoading: { skillFolders: earlyFolders } };
      if (current === null) throw new Error("a message was released before the catalog loaded");
      const server = createSkillServer({
        store: current,
        config,
        era,
        ...withScripts,
        ...loadingNote,
      });
      registerLiveServer(server);
      return server;
    }, {
      onFirstAnswer: () => {
        startBuild();
        answered();
      },
      onRequest: () => {
        lastRequestMs = performance.now();
        requestsInFlight++;
        noteClientRequest();
      },
      // A request still being answered is no pause either: the activity ends with its answer.
      onAnswer: () => {
        lastRequestMs = performance.now();
        requestsInFlight = Math.max(0, requestsInFlight - 1);
        noteClientRequest();
      },
      ...(early === null
        // A build that fails releases nothing: serve() ends below with the error.
        ? {
          holdUntil: loadedToServe.catch(() => new Promise<void>(() => {})),
          holdsInitialize: true,
        }
        : { holdUntil: complete }),
    });
    await loadedToServe;
    if (early !== null) {
      // Setting up the recursive watcher holds this thread (~200 ms at 10,000 skills, more
      // under load), and a client often pages through the catalog right away: it waits for a
      // pause in requests after the catalog is complete (at most CATCH_UP_MAX_WAIT_MS; issue
      // 13). Nothing is missed meanwhile: the catch-up rescan after it sees every edit made
      // before the watch, and gives way to requests too (until an edit waits behind it).
      await store;
      // The owner's changes apply from now, not once the watcher is up (below): every request but
      // `initialize` waits for the owner's files to be read and applied (r17 hB-1), and a client
      // paging through the catalog now must not wait for the pause the watcher waits for.
      goLive(null);
      const completedMs = performance.now();
      await whenQuiet(
        // While a request is answered, activity goes on (a long first page of digests).
        () => requestsInFlight > 0 ? performance.now() : Math.max(lastRequestMs, completedMs),
        { value: false },
        CATCH_UP_MAX_WAIT_MS,
        WATCH_QUIET_MS,
      );
      // A cold build's index cache write and compaction, now that the first requests (usually
      // a full skills/list) paused: they held the first page back by ~0.3-0.5 s (s9-h4).
      (await loading).housekeeping.run();
      refresh = await watchAndCatchUp(await store, (await loading).builtFromMs);
    }
    // Non-zero when a message over the read buffer closed the session (stdio.ts logged why).
    // A SIGTERM or SIGINT the trusted part relayed ends the session too (0): running scripts are
    // then stopped below, as when stdin ends, so none outlives the server (review n8).
    const stopped = new Promise<number>((resolve) => {
      if (shutdownRequested.signal.aborted) resolve(0);
      shutdownRequested.signal.addEventListener("abort", () => resolve(0), { once: true });
    });
    ended = Promise.race([closed.then((end) => end.exitCode), stopped]);
  } else {
    // Loaded only for --http: a stdio server answers `initialize` without the HTTP stack.
    const { serveOverHttp } = await import("../transports/http/serve.ts");
    const service = serveOverHttp(config, {
      store,
      createServer: (current, info) =>
        createSkillServer({ store: current, config, ...info, ...withScripts }),
      signal: shutdownRequested.signal,
      // Background work (the catch-up below, the search index) gives way to requests, and the
      // search index's build waits for a first pause in them, as over stdio.
      onActivity: () => {
        lastRequestMs = performance.now();
        noteClientRequest();
      },
      ...(scripts === undefined ? {} : { stopWork: () => scripts.stopAll() }),
    });
    ended = service.finished.then(() => 0);
    const served = await store;
    // Every request but `initialize` waits for the owner's files (r17 hB-1), and they apply from
    // the moment the catalog is complete, not once the watcher is up: its set-up held every tool
    // call and listing 2.2-4.7 s at 10,000 skills on a loaded two-core machine (s15 hY).
    goLive(null);
    // The catch-up is off the ready line's way; its rescan gives way to requests (`onActivity`).
    refresh = await watchAndCatchUp(served, (await loading).builtFromMs);
  }
  // The owner's changes apply live from here at the latest, before the first answer of a small
  // catalog (its instructions reflect them); a large one answered early, or one served over HTTP,
  // went live once complete (this only records the watcher).
  goLive(refresh);
  onRemoteRoots = createRemoteRootsHandler(await store, config);
  if (pendingRemoteRoots !== null) onRemoteRoots(pendingRemoteRoots);
  const first = await loading;
  // Owed only to the early stdio path above, which ran it; never left for long elsewhere.
  first.housekeeping.run();
  // What is served: the overlay (overrides.json) applied, as skill_list and `list` show it.
  post({ type: "ready", ...summariseProblems(await store, scripts), skillLoads: first.skillLoads });
  const isEndedFirst = await Promise.race([
    firstAnswered.then(() => false),
    ended.then(() => true),
  ]);
  // The trusted part's start-up heap compaction waits for this.
  post({ type: "answered" });
  // A smaller first build's index cache, written now that the first answer went out (or the
  // session ended first, or no request came within the grace period).
  if (!first.isIndexCacheWritten) first.indexCache.flush();
  // A smaller catalog's start-up garbage (the grown young generation above all), given back once
  // now that the first answer went out (issue 13: RSS at 12 skills); a large one was compacted
  // after its build, and a session already over exits instead.
  if (!isEndedFirst) releaseStartupHeap(first.catalog.skills.length);
  if (isWatchAfterAnswer && !isEndedFirst) {
    const served = await store;
    refresh = await watchAndCatchUp(served, first.builtFromMs);
  }
  // skill_search's index, built in the background (time-sliced) so the first search is fast.
  const isOver = { value: false };
  void ended.then(() => (isOver.value = true));
  whenQuiet(() => lastRequestMs, isOver).then(async () => {
    if (!isOver.value) {
      await warmSearchIndex(await store, config.caps.maxSkillMdBytes, BACKGROUND_GIVE_WAY);
    }
  }).catch((error: unknown) => {
    console.error("skillgate: could not build the search index:", error);
  });
  const code = await ended;
  // A session over before its requests paused still leaves the index cache written (no
  // compaction: the process ends).
  first.housekeeping.run(false);
  // Not close(): nothing waits for the refresh in progress; the watch isolate is ended (never
  // blocks, even while a FIFO holds its watcher thread).
  refresh?.abandon();
  await scripts?.stopAll();
  post({ type: "exit", code });
}

function post(
  message:
    | ReadyMessage
    | AnsweredMessage
    | IsolationWantedMessage
    | OwnerWantedMessage
    | ExitMessage,
): void {
  self.postMessage(message);
}
