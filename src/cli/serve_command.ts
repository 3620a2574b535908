/**
 * `skillgate serve`'s trusted part after the worker was created early:
 * everything `main.ts` does not need before that moment. `main.ts` loads this
 * module only after it has created the worker with the predicted permission
 * set, so these modules load on the main thread while the worker's load on
 * its own (issue 13: the first answer after spawn).
 *
 * @module
 */

import { basename } from "node:path";
import type { Config } from "../config/config.ts";
import type { ConfigLocation } from "../config/file/load_config.ts";
import { keptSetByView } from "../config/file/live_config.ts";
import type { SetByView } from "../config/file/overrides_file.ts";
import { type OwnerFilesWatch, watchOwnerFiles } from "../config/file/watch_owner_files.ts";
import { deferOwnerWatch } from "../config/file/deferred_owner_watch.ts";
import { createViewOverrideWriter } from "../config/file/view_override_write.ts";
import { isolateEntryUrl } from "../entry_points.ts";
import { folderOpener } from "../files/folder_beneath.ts";
import type * as RemoteServeModule from "../remote/remote_serve.ts";
import type { PreparedRemote } from "../remote/remote_serve.ts";
import type { SkillOverrides } from "../skills/overrides.ts";
import { createEnvReleaseService } from "../sandbox/env_release_service.ts";
import { createDigestIsolateHost } from "../sandbox/digest_isolate_host.ts";
import { createWatchIsolateHost } from "../sandbox/watch_isolate_host.ts";
import { startWatchService } from "../refresh/inotify/watch_service.ts";
import type { PreparedProcess } from "../sandbox/process_prep.ts";
import { startWorker } from "../sandbox/worker_host.ts";
import type { RootPaths, WorkerPermissions } from "../sandbox/worker_permissions.ts";
import { adoptEarlyWorker } from "../sandbox/worker_prediction.ts";
import { rememberStart } from "../sandbox/early_start.ts";
import { heldWorkerOption } from "../sandbox/worker_isolate.ts";
import { exitProcess } from "../sandbox/process_exit.ts";
import { inheritedIgnoredSignals } from "../sandbox/ignored_signals.ts";
import { computeWorkerSet } from "../sandbox/worker_set.ts";
import { releaseStartupHeap } from "../worker/heap_release.ts";
import { httpScriptsWarning } from "../transports/http/http_startup.ts";
import {
  httpReadyLine,
  listenForShutdownSignals,
  SHUTDOWN_SIGNALS,
  signalExitCode,
} from "../transports/http/shutdown_signals.ts";
import { HTTP_DRAIN_TIMEOUT_MS } from "../caps.ts";

/**
 * How long a stdio server may take to stop its scripts and exit after a
 * SIGTERM or SIGINT, in ms, before it exits anyway (143).
 */
const STDIO_STOP_TIMEOUT_MS = 5_000;
import { bannerText } from "./banner.ts";
import { EXIT_USAGE } from "./command_io.ts";
import { startLine } from "./start_line.ts";
import { logErrorLine } from "./terminal_text.ts";

/** What `main.ts` decided before loading this module. */
export interface ServeStart {
  /** The configuration, its roots checked and its index cache folder prepared. */
  readonly config: Config;
  /** Where the configuration and overrides files are (null: none is used). */
  readonly location: ConfigLocation | null;
  /** overrides.json, read at start-up. */
  readonly overrides: SkillOverrides;
  /** The switches a settings view set, as read (kept here against `overrides`). */
  readonly setByView: SetByView;
  /** The checked roots' paths (local, then remote). */
  readonly rootPaths: readonly RootPaths[];
  /** The remote sources' set-up, or null without remote sources. */
  readonly remote: RemoteServe | null;
  /** The set the early worker was created with, or null when none was predicted. */
  readonly predicted: WorkerPermissions | null;
  /** The worker created with `predicted` (null when none was). */
  readonly early: Worker | null;
  /** The process preparation done before the early worker was created, if any. */
  readonly prepared?: PreparedProcess;
  /** How a client would start this program (banner). */
  readonly launchCommand: () => string[];
}

/** The remote sources' serving module and what it prepared. */
export interface RemoteServe {
  /** `src/remote/remote_serve.ts`, loaded only when sources are configured. */
  readonly module: typeof RemoteServeModule;
  /** Its `prepareRemote` result (without an error). */
  readonly prepared: PreparedRemote;
}

/**
 * Computes the worker's permission set (isolation probe included), keeps the
 * early worker only when its set is exactly that one (else ends it and
 * starts another), starts serving, and waits for the session to end.
 *
 * @param start What `main.ts` decided (see {@linkcode ServeStart}).
 * @returns The process's exit code (`EXIT_USAGE` when start-up is refused).
 *
 * Requires the trusted part's `--allow-all` and `--unstable-worker-options`.
 */
export async function serveCommand(start: ServeStart): Promise<number> {
  let { config } = start;
  const { location, overrides, remote, rootPaths } = start;
  const setByView = keptSetByView(start.setByView, overrides);
  const sourcesCache = remote === null ? {} : {
    sourcesCache: remote.prepared.setup.cacheDir,
    sourceFolders: remote.prepared.setup.sourceFolders,
  };
  const workerSet = await computeWorkerSet(config, rootPaths, {
    getEnv: (name) => Deno.env.get(name),
    ...sourcesCache,
    ...(start.prepared === undefined ? {} : { prepared: start.prepared }),
    // When the grant lets nothing run, the probe decides only the isolation the tools report:
    // it runs after the first answer (or when a tool call asks first), off that answer's path.
    deferProbe: true,
  });
  const { scripts, explained, indexCacheDir } = workerSet;
  if (scripts.refusal !== null) {
    start.early?.terminate();
    logErrorLine(`skillgate: ${scripts.refusal}`);
    return EXIT_USAGE;
  }
  if (scripts.warning !== null) logErrorLine(`skillgate: ${scripts.warning}`);
  if (scripts.dataDirProblem !== null) logErrorLine(`skillgate: ${scripts.dataDirProblem}`);
  if (indexCacheDir !== config.indexCacheDir) {
    if (workerSet.indexCacheProblem !== null) {
      logErrorLine(`skillgate: ${workerSet.indexCacheProblem}`);
    }
    config = { ...config, indexCacheDir };
  }
  const httpWarning = httpScriptsWarning(config, { mayRunScripts: scripts.run.length > 0 });
  if (httpWarning !== null) logErrorLine(`skillgate: ${httpWarning}`);
  const { permissions } = explained;
  // Granted values leave this part per run, bounded by the declaration read again (issue 13).
  // The overrides in force: start-up's, narrowed by every live edit posted to the worker below.
  let overridesInForce = overrides;
  const envRelease = createEnvReleaseService(workerSet, {
    caps: config.caps,
    getEnv: (name) => Deno.env.get(name),
    overrides: () => overridesInForce,
  });
  // Live refresh's inotify watch of the roots, here in the trusted part: the worker gets no FFI;
  // null under --static or where inotify cannot be used. The owner files' watch holds an inotify
  // service of its own (a root writer cannot overflow its queue: review r17, hA-7).
  const watchService = config.options.static ? null : startWatchService();
  // The owner's files are watched here, never by the worker: it only receives what narrows. The
  // watch opens after the first answer (or at a settings view's first write, which needs it), off
  // that answer's path (issue 13; deferred_owner_watch.ts).
  let openOwnerWatchNow = () => {};
  const ownerWatch = deferOwnerWatch(
    () => openOwnerWatch(),
    new Promise<void>((resolve) => (openOwnerWatchNow = resolve)),
  );
  // A settings view's write: checked and written here (the worker may only ask). A watch that
  // could not open (said on stderr) leaves the write refused, as under --static.
  const writeOverride = (request: unknown) => {
    let holder: OwnerFilesWatch | null = null;
    try {
      holder = ownerWatch.now();
    } catch { /* said by openOwnerWatch */ }
    return createViewOverrideWriter(location, holder, workerSet.declarationBases)(request);
  };
  // The early worker serves only with exactly the computed set; otherwise it ends here, unused.
  const preloaded = adoptEarlyWorker(start.early, start.predicted, permissions);
  const session = startWorker(
    isolateEntryUrl("worker"),
    config,
    permissions,
    // The worker builds the catalog (the only build); granted values are released per run.
    {
      scripts: scripts.facts,
      groupKiller: scripts.groupKiller,
      releaseEnv: envRelease.release,
      overlay: { overrides, problems: [], setByView },
      writeOverride,
      // Hashes skills/list digests on the second core during a large cold build (issue 13).
      digestIsolate: createDigestIsolateHost(
        isolateEntryUrl("digests"),
        workerSet.digestIsolate.permissions,
      ),
      // Answers live refresh's watch requests from the inotify service, confined to the roots.
      watchIsolate: createWatchIsolateHost(watchService, workerSet.watchRoots),
      ...(preloaded === null ? {} : { worker: preloaded }),
      ...(scripts.pendingIsolation === null ? {} : { isolationWanted: () => probeLate() }),
      // Requests wait until the owner files' watch read both files once (review r17, hB-1);
      // one that comes before the first answer opens the watch now, one after a failed or
      // timed-out read has them read again (session 13, hA).
      ...(location === null || config.options.static ? {} : { ownerWanted: () => ownerWanted() }),
      // Where each root led when the read set above was computed: live refresh's root link
      // check compares with it (CI s17, review r18).
      rootRealPaths: rootPaths,
    },
  );
  // The worker's discovery and file listing ask this thread to read folders by path from their
  // first request on (issue 13): the opener's libc binding (~12 ms measured, Deno.dlopen) is made
  // now, while the worker still loads its modules, not on that first request's path.
  setTimeout(() => folderOpener(), 0);
  // The next start of the same command creates its worker first, with this set (issue 13): written
  // once serving, only for a worker adopted as computed (early_start.ts says why that is safe). On
  // `ready`, not after the first answer: a client that ends the process right after that answer
  // would leave no record (review r8); the write is a small file, unlike the collection below.
  const adopted = preloaded === null ? undefined : heldWorkerOption(preloaded);
  if (adopted !== undefined) session.ready.then(() => rememberStart(adopted), () => {});
  const watchedConfig = config;
  // The owner's files could not be read since the start (session 13, hA): fails closed, as
  // start-up refuses such a file. The worker refuses the waiting requests, the next asks again;
  // one stderr line per new set of files says what and what to do (the problem lines above it
  // say why).
  let unreadSaid = "";
  const ownerUnread = (paths: readonly string[]) => {
    session.postOwnerUnread(paths.map((path) => basename(path)));
    const said = paths.join(" and ");
    if (said === unreadSaid) return;
    unreadSaid = said;
    logErrorLine(
      `skillgate: ${said} could not be read since start-up, so no request is answered (a skill ` +
        "turned off there must not be served on the settings read at start-up): fix or remove " +
        "it; it is read again when it changes and at the next request",
    );
  };
  // (Called only once the worker started: after its first answer, at a view's first write, or
  // when a request asks first.) Never throws unsaid: a watch that cannot start fails closed.
  const openOwnerWatch = () => {
    if (location === null || watchedConfig.options.static) return null;
    let watch: OwnerFilesWatch | null;
    try {
      watch = startOwnerWatch(location);
    } catch (error) {
      logErrorLine(
        `skillgate: the watch over the owner's files could not start (${
          error instanceof Error ? error.message : String(error)
        }); it is tried again at the next request`,
      );
      ownerUnread([location.path, location.overridesPath]);
      throw error;
    }
    // No folder on the way: no owner file exists, start-up's read is current.
    if (watch === null) session.postOwnerCurrent();
    return watch;
  };
  const ownerWanted = () => {
    const wasOpened = ownerWatch.isOpened;
    let watch: OwnerFilesWatch | null;
    try {
      watch = ownerWatch.now();
    } catch {
      return; // said and posted by openOwnerWatch
    }
    // Opened just now: its first read posts. Opened before: read again (or said again).
    if (!wasOpened) return;
    if (watch === null) session.postOwnerCurrent();
    else watch.readWanted();
  };
  const startOwnerWatch = (location: ConfigLocation) =>
    watchOwnerFiles(
      {
        input: { args: Deno.args, getEnv: (name) => Deno.env.get(name), cwd: Deno.cwd() },
        running: watchedConfig,
        location,
        overrides,
        caps: watchedConfig.caps,
        setByView,
      },
      {
        onChange: (update) => {
          overridesInForce = update.overlay.overrides;
          session.postOverlay(update);
        },
        log: logErrorLine,
        onFirstRead: () => session.postOwnerCurrent(),
        onUnread: ownerUnread,
      },
    );
  session.answered.then(openOwnerWatchNow);
  // Exiting before the worker's orderly stop (a second signal, a stop deadline) would leave
  // process-group scripts running (review r12, F6): exitProcess kills every registered group first.
  const exitNow = (code: number): never => exitProcess(code);
  // A signal the process was started with ignored (`nohup`, a background job) stays ignored: as
  // main.ts read it before any second thread existed (h11).
  const ignored = inheritedIgnoredSignals(SHUTDOWN_SIGNALS);
  // The deferred isolation probe (issue 13): once, after the first answer or when asked first.
  let probing: Promise<void> | null = null;
  const probeLate = () => {
    const pending = scripts.pendingIsolation;
    if (pending === null || probing !== null) return;
    probing = pending().then(
      (facts) => session.postIsolation(facts),
      (error: unknown) => {
        // As when the probe ran before the worker started: an internal error ends the process.
        logErrorLine(
          `skillgate: internal error: ${error instanceof Error ? error.message : String(error)}`,
        );
        exitNow(1);
      },
    );
  };
  session.answered.then(probeLate);
  if (config.options.http !== null) {
    const httpConfig = config;
    session.ready.then((ready) => logErrorLine(httpReadyLine(httpConfig, ready)));
    // Signals reach this part, not the worker: relay the first, exit on the second.
    listenForShutdownSignals({
      ignored,
      onFirst: () => {
        session.shutdown();
        const deadline = setTimeout(() => exitNow(1), HTTP_DRAIN_TIMEOUT_MS + 5_000);
        Deno.unrefTimer(deadline);
      },
      onRepeat: (signal) => exitNow(signalExitCode(signal)),
    });
  } else {
    // Over stdio a client stops its server with SIGTERM (the SDKs' close()): Deno's default would
    // end this process at once and leave scripts running in their own process groups (review n8).
    // Relayed, the worker stops every run (their groups killed) and exits; a second signal, or
    // no exit within STDIO_STOP_TIMEOUT_MS, exits now.
    listenForShutdownSignals({
      ignored,
      onFirst: () => {
        session.shutdown();
        const deadline = setTimeout(() => exitNow(143), STDIO_STOP_TIMEOUT_MS);
        Deno.unrefTimer(deadline);
      },
      onRepeat: (signal) => exitNow(signalExitCode(signal)),
    });
  }
  if (config.options.http !== null) {
    // Its ready line is logged when ready (above).
  } else if (Deno.stdin.isTerminal()) {
    const isolation = scripts.facts.isolation;
    const bannerConfig = config;
    session.ready.then((ready) =>
      logErrorLine(
        bannerText(
          bannerConfig,
          ready,
          start.launchCommand(),
          scripts.run.length > 0 ? isolation.mode : null,
        ),
      )
    );
  } else {
    // Started by a client: one line for its log (what was served), never on stdout.
    const lineConfig = config;
    session.ready.then((ready) => logErrorLine(startLine(lineConfig, ready)));
  }
  // This part's start-up objects (configuration, checks, the modules that started the worker),
  // given back once the worker serves and its first answer went out (issue 13: RSS at 12 skills).
  // Not sooner: the worker's build asks this thread for descriptor locations, which a collection
  // would hold up, and the collection's helper threads took the CPU from the SDK's handling of
  // `initialize` when it ran on `ready` (bench/results/issue13.md, section s17).
  session.ready.then(() => session.answered).then(() => setTimeout(() => releaseStartupHeap(0), 0));
  const remoteRefresh = remote === null ? null : remote.module.startRemoteRefresh(remote.prepared, {
    updateRemoteRoots: (roots) => session.updateRemoteRoots(roots),
    log: (line) => logErrorLine(`skillgate: ${line}`),
  });
  const exit = await session.exited;
  // The watches end (their descriptors closed, the parked poll woken); not awaited: the process
  // exits next whatever they do (review r17, hA-L4).
  void (ownerWatch.isOpened ? ownerWatch.now() : null)?.close().catch(() => {});
  void watchService?.close().catch(() => {});
  remoteRefresh?.close();
  envRelease.reader.close();
  if (exit.message !== undefined) logErrorLine(`skillgate: ${exit.message}`);
  return exit.code;
}
