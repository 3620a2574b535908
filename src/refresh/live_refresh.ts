/**
 * Live refresh: watches the roots (and the real folders of symlinked skills),
 * debounces editor save bursts, rebuilds only what changed off the request
 * path, swaps the snapshot atomically and tells every connected client.
 * Refreshes run one at a time; events that arrive during one are batched
 * into the next. Requests keep answering from the previous snapshot until
 * the swap, so nothing half-updated is ever served.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import type { Caps } from "../caps.ts";
import type { Config } from "../config/config.ts";
import { catalogChannel } from "../mcp/model_catalog/model_catalog.ts";
import { buildCatalog, type SkillLoader } from "../skills/catalog.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { Catalog } from "../skills/skill.ts";
import { rebuildCatalog } from "../skills/rebuild_catalog.ts";
import { BackgroundWorkStopped, type GiveWay } from "../skills/_time_slice.ts";
import { type CatalogChange, diffCatalogs } from "./catalog_diff.ts";
import { createPathDebouncer } from "./debounce.ts";
import { notifyLiveServers } from "./notify_servers.ts";
import { isolateReadPaths, watchPaths } from "./watch_paths.ts";
import { setStaleSkillHandler } from "./stale_hint.ts";
import { type LostFolder, WATCH_LIMIT, type WatchOpener } from "./watch_plan.ts";
import { GONE_WHY } from "./inotify/watch_tree.ts";
import {
  inProcessWatch,
  type OpenedWatch,
  type WatchBackend,
  type WatchHandle,
} from "./watch_open.ts";
import {
  directStarter,
  isWatchStopped,
  startWatchIsolate,
  trustedPartStarter,
  type TrustedPeer,
  type WatchIsolateStarter,
} from "./watch_isolate.ts";
import { skillsChangedSince } from "./catch_up.ts";
import { movedRootLine, startRootLinkCheck } from "./root_link_check.ts";
import type { RootPaths } from "../sandbox/worker_permissions.ts";
import { describeError, logErrorLine } from "../cli/terminal_text.ts";
import { descriptorShortagesGivenUp } from "../files/descriptor_shortage.ts";

/** Options of {@linkcode startLiveRefresh}. */
export interface LiveRefreshOptions {
  readonly caps: Caps;
  /** Whether the model's catalog lives in `skill_load`'s description (tools/list_changed on change). */
  readonly isToolDescriptionMode: boolean;
  /** Quiet period after the last event, in ms. @default 200 */
  readonly quietMs?: number;
  /** Longest wait under a steady stream of events, in ms. @default 2000 */
  readonly maxWaitMs?: number;
  /** Skill loader (tests inject a counting one). @default loadSkill */
  readonly load?: SkillLoader;
  /** Called after every refresh, for logs, tests and benchmarks. */
  readonly onRefresh?: (report: RefreshReport) => void;
  /**
   * Opens Deno.watchFs watchers in this thread (tests of the split-watch
   * logic inject one that fails for a folder).
   * @default none: the trusted part's inotify watch (`watch_isolate.ts`)
   */
  readonly watchFs?: WatchOpener;
  /** Where the watch comes from. */
  readonly watchIsolate?: {
    /**
     * The serving worker's `self`: its watch is the trusted part's.
     * @default none: this thread runs an inotify service of its own (tests)
     */
    readonly parent?: TrustedPeer;
    /**
     * Where the watch comes from (tests force the fallback with a starter
     * that has no inotify). @default the trusted part's (`parent`), else
     * `directStarter`
     */
    readonly starter?: WatchIsolateStarter;
  };
  /**
   * How often the roots are read where nothing can watch (no inotify), in
   * ms. @default 30000
   */
  readonly pollMs?: number;
  /**
   * How often a root the user's inotify watch limit left unwatched (or a
   * folder lost for want of descriptors or memory) is tried again and read,
   * in ms. @default 30000
   */
  readonly watchLimitRetryMs?: number;
  /**
   * How long background work (the catch-up rescan) may be stopped and run
   * again for changes waiting behind it, in ms from its first stop; past
   * that it runs to its end (see {@linkcode MAX_BACKGROUND_DEFERRAL_MS}).
   * @default MAX_BACKGROUND_DEFERRAL_MS
   */
  readonly backgroundDeferralMs?: number;
  /**
   * Where each local root led when the server started (the worker's read
   * set was computed from it; null: it did not resolve then): the root link
   * check compares with these. @default the check's own look when it starts
   */
  readonly rootRealsAtStart?: ReadonlyMap<string, string | null>;
}

/** What one refresh did. */
export interface RefreshReport {
  /** Distinct changed paths in the batch. */
  readonly paths: number;
  /** Those paths (a root stands for a rescan of it). */
  readonly changedPaths: readonly string[];
  readonly isFullRescan: boolean;
  /** Skill folders loaded again. */
  readonly loaded: number;
  /** Whether a new snapshot was swapped in. */
  readonly isSwapped: boolean;
  readonly change: CatalogChange | null;
  /** Notifications sent to live servers. */
  readonly notificationsSent: number;
  /** From the batch's hand-over to the notifications, in ms. */
  readonly durationMs: number;
}

/**
 * How long background work (the catch-up rescan after a late watch) may be
 * deferred, in ms from its first stop: until then a change waiting behind it
 * stops it at its next pause, is served in a refresh of its own, and the
 * work runs again, whole (s16: at 10,000 skills the rescan takes ~1 s, and
 * an edit made while it ran was noticed 0.8-1.2 s late); past it, the work
 * runs to its end, so a steady stream of edits delays what changed before
 * the watch by about this much at most, never for ever.
 */
export const MAX_BACKGROUND_DEFERRAL_MS = 10_000;

/** A running live refresh; dispose it (or `close()`) to stop watching. */
export interface LiveRefresh extends AsyncDisposable {
  /** The folders watched now. */
  readonly watched: readonly string[];
  /**
   * The folders under them that cannot be watched now (each named on stderr
   * once): edits there are not seen until a refresh of their root reads them.
   */
  readonly unwatched: readonly LostFolder[];
  /**
   * Runs a refresh for `paths` now (after any refresh in progress).
   *
   * @param paths Changed paths (a root rescans it).
   * @param options `giveWay`: background work (the catch-up rescan after an
   *   early answer) that holds its turns while client requests flow, until
   *   a change from the watcher waits behind it (see `createTimeSlice`);
   *   applies while every path of the batch came with it. @default none
   */
  refresh(
    paths: readonly string[],
    options?: { readonly giveWay?: Omit<GiveWay, "isUrgent"> },
  ): Promise<void>;
  /**
   * Builds the whole catalog afresh with the caps as they are now (after any
   * refresh in progress), reusing nothing: a lowered cap (a live edit of the
   * configuration file) then applies to every skill.
   */
  rebuildAll(): Promise<void>;
  /** Stops watching and waits for the refresh in progress. Idempotent. */
  close(): Promise<void>;
  /**
   * Stops refreshing when the process is about to exit: the watch isolate is
   * terminated (never blocks, even while a FIFO holds its watcher thread;
   * measured under Deno 2.9.6) without waiting for the refresh in progress.
   * Idempotent.
   */
  abandon(): void;
}

/**
 * Starts watching and refreshing.
 *
 * @param store The store to swap snapshots into.
 * @param options Caps, catalog channel, debounce timings, loader, report hook.
 * @returns The running refresh.
 *
 * Requires `--allow-read` on the roots (watching needs read permission on
 * every watched folder) and `--unstable-worker-options` (the watch isolate).
 *
 * Source: issue 6, "Live refresh"; MCP 2025-11-25 list_changed and
 * resources/updated notifications.
 */
export async function startLiveRefresh(
  store: CatalogStore,
  options: LiveRefreshOptions,
): Promise<LiveRefresh> {
  let watched: string[] = [];
  let unwatched: readonly LostFolder[] = [];
  /** The folders watched flat while a path could not be watched whole (split). */
  let flatFolders = new Set<string>();
  /** The sub-folders each flat-watched folder had when planned (a change there re-plans). */
  let flatEntries = new Map<string, readonly string[]>();
  const warned = new Set<string>();
  const limitRetrySeconds = (options.watchLimitRetryMs ?? WATCH_LIMIT_RETRY_MS) / 1000;
  let watchers: WatchHandle[] = [];
  let pump: Promise<void> = Promise.resolve();
  let isClosed = false;
  let pending = new Set<string>();
  /** Set while every pending path came with it (see `LiveRefresh.refresh`). */
  let pendingGiveWay: Omit<GiveWay, "isUrgent"> | null = null;
  /**
   * Background work stopped for a change that waited behind it (s16): its
   * paths and way, run again once nothing else is pending.
   */
  let stoppedBackground: { paths: Set<string>; giveWay: Omit<GiveWay, "isUrgent"> } | null = null;
  /** When the background work was first stopped since it last ran to its end (ms), or null. */
  let firstBackgroundStopMs: number | null = null;
  const backgroundDeferralMs = options.backgroundDeferralMs ?? MAX_BACKGROUND_DEFERRAL_MS;
  let isFreshBuildPending = false;
  let running: Promise<void> | null = null;
  /** Paths the watchers hold in all (Deno's filter opens each one per event). */
  let watchedPathCount = 0;
  /** Pending rescan of a split watch's roots after a burst (see `armRescanCheck`). */
  let rescanCheckTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending check runs at the latest (`performance.now()` ms), while one is armed. */
  let rescanCheckDueMs: number | undefined;
  /** When the last event came (`performance.now()` ms), for the rescan check. */
  let lastEventMs = 0;
  /** Folders removed since the watch was planned (their paths still listed by a watcher). */
  let gonePaths = new Set<string>();
  /**
   * The identity of each sub-folder of a flat-watched folder when its watch
   * was opened (see `folderIdentity`): one removed and made again under the
   * same name within one batch is listed in both, and only this tells them apart.
   */
  let folderIds = new Map<string, string>();
  /** Lost folders that could be read when planned (see `splitChange`). */
  let readableLost = new Set<string>();
  /** Checks in a row that a steady stream of events forced (no quiet time before them). */
  let streamChecks = 0;
  /** Pending retry of a watch the user's watch limit refused (see `WATCH_LIMIT_RETRY_MS`). */
  let limitRetryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set by that retry: the watch is planned again (then every watched path rescanned). */
  let isRewatchPending = false;
  /**
   * Pending check for a local root that was removed: its watch died with it, and nothing watches
   * its parent, so it is looked for again every `ROOT_RETURN_CHECK_MS` (review r15, H7).
   */
  let rootReturnTimer: ReturnType<typeof setTimeout> | undefined;
  /** Roots found again by that check: read once the watch over them is open. */
  const returnedRoots: string[] = [];
  /** Roots already named on stderr as removed. */
  const goneRootsSaid = new Set<string>();
  /** Re-plans in a row for folders found gone at their walk (see `onGone`), and the last one's time. */
  let goneReplans = 0;
  let lastGoneMs = -Infinity;
  /** A re-plan for such a folder put off (past `MAX_GONE_REPLANS` in a row). */
  let goneRetryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The watcher listing served skills' files (see `rewatchSkillFiles`), if any. */
  let skillFileWatcher: WatchHandle | null = null;
  /** The skill-file watcher's updates, one at a time (each waits for the isolate's answer). */
  let skillFileChain: Promise<void> = Promise.resolve();
  /** Set once watching was given up: the roots are read every `pollMs` instead. */
  let isPolling = false;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  const pollMs = options.pollMs ?? POLL_MS;
  /** The paths `skillFileWatcher` lists. */
  let skillFilePaths: readonly string[] = [];
  /** The paths of the skill-file watcher being asked for now (its answer's losses are no loss). */
  let skillFilesAsked: ReadonlySet<string> = new Set();
  /** Reads the events of every `skillFileWatcher` opened (kept apart: a re-plan awaits `pump`). */
  let skillFilePump: Promise<void> = Promise.resolve();

  /** Paths whose rebuild met a descriptor shortage, read again by `shortageRetryTimer`. */
  const shortagePaths = new Set<string>();
  let isShortageFresh = false;
  let isShortageSaid = false;
  let shortageRetryTimer: ReturnType<typeof setTimeout> | undefined;

  const debouncer = createPathDebouncer((paths) => void schedule(paths), {
    ...(options.quietMs === undefined ? {} : { quietMs: options.quietMs }),
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });

  /**
   * Reads `paths` again after {@linkcode SHORTAGE_RETRY_MS} (a rebuild that met
   * a descriptor shortage is not swapped in); one stderr line per run of them.
   */
  function retryAfterShortage(paths: readonly string[], isFresh: boolean): void {
    if (!isShortageSaid) {
      isShortageSaid = true;
      logErrorLine(
        "skillgate: live refresh is out of file descriptors for now (ulimit -n); the catalog " +
          "stays as it was and the change is read again in a moment",
      );
    }
    for (const path of paths) shortagePaths.add(path);
    if (isFresh) isShortageFresh = true;
    if (shortageRetryTimer !== undefined) return;
    shortageRetryTimer = setTimeout(() => {
      shortageRetryTimer = undefined;
      if (isClosed) return;
      const again = [...shortagePaths];
      shortagePaths.clear();
      if (isShortageFresh) {
        isShortageFresh = false;
        isFreshBuildPending = true;
      }
      void schedule(again);
    }, SHORTAGE_RETRY_MS);
  }

  function schedule(
    paths: readonly string[],
    giveWay?: Omit<GiveWay, "isUrgent">,
  ): Promise<void> {
    pendingGiveWay = giveWay !== undefined && (pending.size === 0 || pendingGiveWay !== null)
      ? giveWay
      : null;
    for (const path of paths) pending.add(path);
    running ??= drain();
    return running;
  }

  async function drain(): Promise<void> {
    try {
      while (
        (pending.size > 0 || isFreshBuildPending || isRewatchPending ||
          stoppedBackground !== null) && !isClosed
      ) {
        if (isRewatchPending && pending.size === 0 && !isFreshBuildPending) {
          isRewatchPending = false;
          await rewatch(true);
          // A removed root made again: read once the new watch covers it.
          for (const root of returnedRoots.splice(0)) pending.add(root);
          continue;
        }
        if (pending.size === 0 && !isFreshBuildPending && stoppedBackground !== null) {
          // The changes it stopped for are served: the background work runs again, whole.
          pending = stoppedBackground.paths;
          pendingGiveWay = stoppedBackground.giveWay;
          stoppedBackground = null;
        }
        const batch = [...pending];
        const giveWay = pendingGiveWay;
        pending = new Set();
        pendingGiveWay = null;
        const isFresh = isFreshBuildPending;
        isFreshBuildPending = false;
        await refreshOnce(batch, isFresh, giveWay);
      }
    } finally {
      running = null;
    }
  }

  async function refreshOnce(
    paths: string[],
    isFresh = false,
    giveWay: Omit<GiveWay, "isUrgent"> | null = null,
  ): Promise<void> {
    const startedMs = performance.now();
    // Rebuilt from the catalog as built (skills the owner disabled included), diffed as served.
    let previous = store.base();
    let previousView = store.current();
    let report: RefreshReport;
    try {
      const rebuildFrom = (base: Catalog) =>
        isFresh ? freshBuild(base, options) : rebuildCatalog(base, paths, {
          caps: options.caps,
          ...(options.load === undefined ? {} : { load: options.load }),
          // A change waiting behind background work ends its giving way, and stops it (for a
          // while at most) so the change is served first.
          ...(giveWay === null ? {} : {
            giveWay: {
              ...giveWay,
              isUrgent: () => pending.size > 0 || isFreshBuildPending,
              shouldStop: () =>
                pending.size > 0 && pendingGiveWay === null &&
                (firstBackgroundStopMs === null ||
                  performance.now() - firstBackgroundStopMs < backgroundDeferralMs),
            },
          }),
        });
      const shortagesBefore = descriptorShortagesGivenUp();
      let rebuilt = await rebuildFrom(previous);
      // Another swap while this one was built (new remote roots, time-sliced background work):
      // build again on top of it, so neither is lost (a catch-up once reverted remote roots).
      for (let again = 0; again < 3 && store.base() !== previous; again++) {
        previous = store.base();
        previousView = store.current();
        rebuilt = await rebuildFrom(previous);
      }
      if (descriptorShortagesGivenUp() !== shortagesBefore) {
        // A read gave up for want of a descriptor while this was built: a skill it found
        // unreadable or missing may only have lacked one, and swapping it in dropped whole skills
        // under `ulimit -n` (hG: 591 of 1,100 served). The catalog stays; the same paths are read
        // again a moment later.
        retryAfterShortage(paths, isFresh);
        return;
      }
      const isSwapped = rebuilt.catalog !== previous;
      let change: CatalogChange | null = null;
      let notificationsSent = 0;
      if (isSwapped) {
        store.swap(rebuilt.catalog);
        change = diffCatalogs(previousView, store.current(), paths);
        notificationsSent = notifyLiveServers(change, {
          isToolDescriptionMode: options.isToolDescriptionMode,
        });
      }
      // A split watch misses what is created under a folder watched flat (a new skill folder)
      // and a lost folder made readable (an event in its flat parent). A new folder gets a watch
      // of its own (nothing closes: r9, closing 50 batch watchers over 10,000 folders held the
      // thread 60-130 s); only a lost folder made readable (or a flat one unreadable) plans the
      // whole watch again (each re-plan has a gap, r7).
      const split = splitChange(paths);
      const isReplanned = split.isReplanNeeded || isSwapped
        ? await rewatch(split.isReplanNeeded)
        : false;
      if (!isReplanned && !isClosed) await extendWatch(split);
      armRootReturnCheck();
      // The files of new or changed skills are listed (the isolate opens it: no wait here).
      if (isSwapped && !isReplanned) rewatchSkillFiles();
      report = {
        paths: paths.length,
        changedPaths: paths,
        isFullRescan: rebuilt.isFullRescan,
        loaded: rebuilt.loaded,
        isSwapped,
        change,
        notificationsSent,
        durationMs: performance.now() - startedMs,
      };
    } catch (error) {
      if (error instanceof BackgroundWorkStopped && giveWay !== null) {
        // Nothing of it applied (it stopped before its swap): run again after the change.
        firstBackgroundStopMs ??= performance.now();
        stoppedBackground ??= { paths: new Set(), giveWay };
        for (const path of paths) stoppedBackground.paths.add(path);
        return;
      }
      logErrorLine(
        `skillgate: live refresh failed; the previous catalog stays served: ${
          describeError(error)
        }`,
      );
      return;
    }
    if (giveWay !== null) firstBackgroundStopMs = null;
    options.onRefresh?.(report);
  }

  /**
   * What `paths` changed in a split watch: the sub-folders added to or
   * removed from the flat-watched folders they touched, and whether the
   * watch must be planned again (a lost folder can be read now, a flat
   * folder that is still there cannot, or a folder is made again under a
   * name removed since the plan).
   */
  function splitChange(paths: readonly string[]): SplitChange {
    if (flatFolders.size === 0) return NO_SPLIT_CHANGE;
    const eventPaths = new Set(paths);
    const touched = new Set<string>();
    for (const path of paths) {
      if (flatFolders.has(path)) touched.add(path);
      if (flatFolders.has(dirname(path))) touched.add(dirname(path));
    }
    const added: string[] = [];
    const removed: string[] = [];
    const entries = new Map<string, readonly string[]>();
    const replan: SplitChange = { isReplanNeeded: true, added: [], removed: [], entries };
    for (const folder of touched) {
      const now = subfolders(folder);
      const then = flatEntries.get(folder);
      if (then === undefined) return replan;
      if (now === null) {
        // Gone with its parent's entry (seen there): nothing to watch; a root gone re-plans.
        if (isGone(folder) && !watched.includes(folder)) removed.push(folder);
        else return replan;
        continue;
      }
      const [thenSet, nowSet] = [new Set(then), new Set(now)];
      // Removed and made again within this batch: listed then and now, a new folder all the same.
      if (now.some((child) => thenSet.has(child) && isNewFolder(child, eventPaths))) return replan;
      added.push(...now.filter((child) => !thenSet.has(child)));
      removed.push(...then.filter((child) => !nowSet.has(child)));
      entries.set(folder, now);
    }
    const isReadable = unwatched.some((lost) => {
      if (lost.why === "limit") return false;
      const folder = join(lost.root, lost.folder);
      // Readable when planned already (unwatchable for another reason): a re-plan cannot help,
      // and each one rescans, which would come back here for ever.
      return touched.has(dirname(folder)) && !readableLost.has(folder) &&
        !removed.some((gone) => isAtOrUnder(folder, gone)) && subfolders(folder) !== null;
    });
    // A folder renamed is one removed and one added: its inode keeps the watch it had, and its
    // edits are still served (tested). One moved out of the root loses its watches at once (Deno
    // 2.9.6's notify drops a watched folder moved away, its sub-folders' too: no event of it
    // comes under the old path, tested); only its path stays listed by its batch's watcher.
    // A folder made again under a name a live watcher still lists (removed since the plan):
    // Deno watches a path once per process, so only a re-plan watches the new folder (tested).
    const isRemade = added.some((folder) =>
      [...gonePaths].some((gone) => isAtOrUnder(folder, gone) || isAtOrUnder(gone, folder))
    );
    return isReadable || isRemade ? replan : { isReplanNeeded: false, added, removed, entries };
  }

  /**
   * Whether `child` (listed when planned and now) is another folder than the
   * one whose identity was recorded, as far as this batch says: only a child
   * the batch names is checked (one stat each).
   */
  function isNewFolder(child: string, eventPaths: ReadonlySet<string>): boolean {
    if (!eventPaths.has(child)) return false;
    const then = folderIds.get(child);
    const now = folderIdentity(child);
    return then !== undefined && now !== null && now !== then;
  }

  /** Records the identity of every sub-folder listed in `entries` (folder -> sub-folders). */
  function recordFolderIds(entries: Iterable<readonly string[]>): void {
    for (const children of entries) {
      for (const child of children) {
        const id = folderIdentity(child);
        if (id !== null) folderIds.set(child, id);
      }
    }
  }

  /**
   * Applies `change` to the split watch without closing a watcher: a removed
   * folder's watches died with it (forgotten here), each added one is planned
   * and watched on its own (opening closes nothing, so no live watcher loses a
   * watch), then read (what it got before its watch held).
   */
  async function extendWatch(change: SplitChange): Promise<void> {
    for (const [folder, now] of change.entries) flatEntries.set(folder, now);
    recordFolderIds([change.added]);
    const isRemoved = (folder: string) => change.removed.some((gone) => isAtOrUnder(folder, gone));
    for (const folder of change.removed) gonePaths.add(folder);
    if (change.removed.length > 0) {
      flatFolders = new Set([...flatFolders].filter((folder) => !isRemoved(folder)));
      for (const folder of [...flatEntries.keys()]) {
        if (isRemoved(folder)) flatEntries.delete(folder);
      }
      unwatched = unwatched.filter((lost) => !isRemoved(join(lost.root, lost.folder)));
      readableLost = new Set([...readableLost].filter((folder) => !isRemoved(folder)));
    }
    if (change.added.length === 0 || isPolling) return;
    let opened: OpenedWatch;
    try {
      opened = await backend.openWatchers(change.added);
    } catch (error) {
      // The isolate was found stuck: the watch is planned again whole (or given up).
      if (isWatchStopped(error)) return;
      throw error;
    }
    if (isClosed) {
      for (const watcher of opened.watchers) watcher.close();
      return;
    }
    // Lost folders are named relative to the watched path (root) they are under.
    onGone(opened.lost.filter((folder) => folder.why === GONE_WHY));
    const lost = opened.lost.filter((folder) => folder.why !== GONE_WHY).map((folder) => {
      const path = join(folder.root, folder.folder);
      const root = watched.find((watchedPath) => isAtOrUnder(path, watchedPath)) ?? folder.root;
      return { ...folder, root, folder: relative(root, path) || "." };
    });
    watchers = [...watchers, ...opened.watchers];
    watchedPathCount += opened.pathCount;
    for (const folder of opened.flat) flatFolders.add(folder);
    for (const [folder, now] of opened.flatEntries) flatEntries.set(folder, now);
    recordFolderIds(opened.flatEntries.values());
    unwatched = [...unwatched, ...lost];
    for (const { root, folder } of lost) {
      if (subfolders(join(root, folder)) !== null) readableLost.add(join(root, folder));
    }
    warnLost(lost);
    pump = Promise.all([pump, readEvents(opened.watchers)]).then(() => {});
    void schedule(change.added);
  }

  /**
   * Plans the watch again when the watched paths changed or `isFlatChanged`.
   *
   * @returns Whether the watch was replaced (false when nothing changed or closed).
   */
  async function rewatch(isFlatChanged = false): Promise<boolean> {
    if (isClosed || isPolling) return false;
    const next = await watchPaths(store.base());
    const isSame = next.length === watched.length && next.every((path, i) => path === watched[i]);
    if (isClosed || (isSame && !isFlatChanged)) return false;
    const [old, oldPump] = [watchers, pump];
    let firstError: unknown = null;
    if (flatFolders.size === 0 && unwatched.length === 0) {
      // Not split: the new watcher opens before the old one closes, so no event falls between
      // them (the same paths are counted twice, so closing the old keeps them watched). The old
      // one is still read a moment (RETIRE_MS): an event it took meanwhile is handed over.
      try {
        const whole = await backend.openOne(next, true);
        if (isClosed) {
          whole.close();
          return false;
        }
        adopt(next, {
          watchers: [whole],
          lost: [],
          flat: [],
          flatEntries: new Map(),
          pathCount: next.length,
        });
        await new Promise<void>((resolve) => setTimeout(resolve, RETIRE_MS));
        for (const watcher of old) watcher.close();
        await oldPump;
        return true;
      } catch (error) {
        // Stuck and replaced meanwhile: a re-plan is pending (or watching was given up).
        if (isWatchStopped(error)) return false;
        firstError = error ?? new Error("watch failed");
      }
    }
    // Split (before or now): every old watcher closes BEFORE the plan probes and the new ones
    // open. Deno shares one inotify instance per process: closing (or failing to open) a
    // watcher over a folder removes that folder's watches from every live watcher over it, so
    // probing or retiring next to live watchers silently blinded them (edits lost, r7).
    watchers = [];
    for (const watcher of old) watcher.close();
    await oldPump;
    if (isClosed) return true;
    let opened: OpenedWatch;
    try {
      opened = await backend.openWatchers(next, firstError);
    } catch (error) {
      if (isWatchStopped(error)) return true;
      throw error;
    }
    if (isClosed) {
      for (const watcher of opened.watchers) watcher.close();
      return true;
    }
    adopt(next, opened);
    // What changed while nothing watched is read once: every watched path rescanned.
    void schedule(next);
    return true;
  }

  /** Makes `opened` (the watchers over `paths`) the watch: warns once per lost folder, reads events. */
  function adopt(paths: string[], opened: OpenedWatch): void {
    watched = paths;
    watchers = opened.watchers;
    // A folder gone at its walk is not one that cannot be watched: read and asked for again.
    unwatched = opened.lost.filter((lost) => lost.why !== GONE_WHY);
    flatFolders = new Set(opened.flat);
    flatEntries = new Map(opened.flatEntries);
    gonePaths = new Set();
    folderIds = new Map();
    recordFolderIds(opened.flatEntries.values());
    watchedPathCount = opened.pathCount;
    readableLost = new Set(
      opened.lost.map((lost) => join(lost.root, lost.folder)).filter((folder) =>
        subfolders(folder) !== null
      ),
    );
    clearTimeout(limitRetryTimer);
    limitRetryTimer = undefined;
    warnLost(unwatched);
    pump = readEvents(watchers);
    rewatchSkillFiles();
    onGone(opened.lost.filter((lost) => lost.why === GONE_WHY));
  }

  /**
   * Folders the watch found gone at their walk (`GONE_WHY`: removed, swapped
   * for a file or link, or moved while their watch was armed): nothing
   * watches them, and no event will say so, so a folder made again there at
   * once was left unwatched in silence (s15 hX). Each is read again; for a
   * folder there now the watch is planned again (then the folder read), one
   * still gone is left to the root return check (a root) or to that read (a
   * linked skill's folder: its skill is dropped). A path swapped at every
   * arming is planned again at once {@linkcode MAX_GONE_REPLANS} times in a
   * row, then once a {@linkcode ROOT_RETURN_CHECK_MS}. Nothing is said on
   * stderr: the watch is whole again, or the root is said gone as ever.
   */
  function onGone(gone: readonly LostFolder[]): void {
    if (isClosed || isPolling || gone.length === 0) return;
    const paths = [...new Set(gone.map((lost) => join(lost.root, lost.folder)))];
    const back = paths.filter(isFolder);
    const away = paths.filter((path) => !back.includes(path));
    if (away.length > 0) {
      debouncer.add(away);
      armRootReturnCheck();
    }
    if (back.length === 0) return;
    returnedRoots.push(...back);
    const nowMs = performance.now();
    if (nowMs - lastGoneMs > ROOT_RETURN_CHECK_MS) goneReplans = 0;
    lastGoneMs = nowMs;
    const replan = () => {
      if (isClosed || isPolling) return;
      isRewatchPending = true;
      running ??= drain();
    };
    if (++goneReplans <= MAX_GONE_REPLANS) {
      replan();
    } else if (goneRetryTimer === undefined) {
      goneRetryTimer = setTimeout(() => {
        goneRetryTimer = undefined;
        replan();
      }, ROOT_RETURN_CHECK_MS);
    }
  }

  /**
   * Keeps a watcher listing the files of every served local skill (all its
   * listed files, or its SKILL.md alone when all would not fit; none when
   * the watch is split or more than {@linkcode SKILL_FILE_WATCH_MAX_PATHS}
   * would be listed, or with the watched folders they reach
   * {@linkcode MANY_WATCHED_PATHS}). Deno 2.9.6's event filter hands an
   * event to a watcher only when the event's path, resolved NOW (symlinks
   * followed), is one of that watcher's paths or under one, or no longer
   * exists. A file (or a skill's folder) removed and replaced by a symlink
   * leading outside the roots therefore loses both events whenever the
   * filter reaches them after the symlink exists (the watcher's thread late
   * on a busy machine, as right after connecting: 4 of 6 runs), and the
   * skill kept its old entry. Listed here, the path resolves to the same
   * file as the event's path, so the filter passes the event whatever the
   * path now leads to. The roots' watchers still deliver the events (this
   * one's own watch of each file is incidental), so replacing it opens the
   * new one before the old one closes. Updated at start, at a re-plan and
   * after every swap; the watcher is opened in the watch isolate, so a
   * watcher thread stuck in a FIFO's open holds only that isolate (r11: an
   * open here once hung the serving thread). Updates run one at a time; a
   * listed file gone costs the filter one failed open per event.
   */
  function rewatchSkillFiles(): void {
    skillFileChain = skillFileChain.then(updateSkillFileWatcher, () => {});
  }

  async function updateSkillFileWatcher(): Promise<void> {
    if (isClosed || isPolling) return;
    const isSplit = flatFolders.size > 0 || unwatched.length > 0;
    const budget = Math.min(SKILL_FILE_WATCH_MAX_PATHS, MANY_WATCHED_PATHS - 1 - watchedPathCount);
    const next = isSplit ? [] : skillFileList(store.base(), budget);
    if (next.length === skillFilePaths.length && next.every((p, i) => p === skillFilePaths[i])) {
      return;
    }
    const old = skillFileWatcher;
    skillFileWatcher = null;
    skillFilePaths = [];
    if (next.length > 0) {
      skillFilesAsked = new Set(next);
      try {
        const opened = await backend.openOne(next, false);
        if (isClosed || isPolling) {
          opened.close();
        } else {
          skillFileWatcher = opened;
          skillFilePaths = next;
          skillFilePump = Promise.all([skillFilePump, readEvents([opened])]).then(() => {});
        }
      } catch {
        // Tried again at the next update; the folders' watch is unaffected.
      } finally {
        skillFilesAsked = new Set();
      }
    }
    old?.close();
  }

  /**
   * Arms the check for local roots that are no longer folders (removed whole,
   * or replaced by a file): when one is a folder again, the watch is planned
   * again and the root read (its skills served again). One stderr line per
   * root. No event can say a root came back: its watch died with it.
   */
  function armRootReturnCheck(): void {
    if (isClosed || isPolling || rootReturnTimer !== undefined) return;
    const gone = localRoots().filter((root) => !isFolder(root));
    if (gone.length === 0) return;
    for (const root of gone) {
      if (goneRootsSaid.has(root)) continue;
      goneRootsSaid.add(root);
      logErrorLine(
        `skillgate: the root "${root}" is gone; live refresh looks for it again every ` +
          `${ROOT_RETURN_CHECK_MS / 1000} s and serves its skills once it is back`,
      );
    }
    rootReturnTimer = setTimeout(() => {
      rootReturnTimer = undefined;
      if (isClosed || isPolling) return;
      const back = gone.filter(isFolder);
      if (back.length === 0) {
        armRootReturnCheck();
        return;
      }
      for (const root of back) goneRootsSaid.delete(root);
      returnedRoots.push(...back);
      isRewatchPending = true;
      running ??= drain();
      void running.then(() => armRootReturnCheck());
    }, ROOT_RETURN_CHECK_MS);
  }

  /** Names each folder in `lost` on stderr once; arms the retry of a watch limit refused. */
  function warnLost(lostFolders: readonly LostFolder[]): void {
    for (const lost of lostFolders) {
      const key = `${lost.root}\0${lost.folder}`;
      if (warned.has(key)) continue;
      warned.add(key);
      logErrorLine(
        lost.why === WATCH_LIMIT
          ? `skillgate: live refresh is off for "${lost.root}": this user's inotify watch limit ` +
            "is reached (fs.inotify.max_user_watches, shared by all of the user's processes). " +
            "Raise it (e.g. sysctl fs.inotify.max_user_watches=524288) or stop other watchers; " +
            `until then the root is read again every ${limitRetrySeconds} s`
          : lost.folder === "."
          ? `skillgate: live refresh is off for "${lost.root}": cannot watch it (${lost.why})`
          : `skillgate: live refresh misses the folder "${lost.folder}" in "${lost.root}": ` +
            `cannot watch it (${lost.why}); the rest of that root refreshes. ` +
            `${LOST_REMEDIES[lost.why] ?? LOST_REMEDIES.PermissionDenied} (its changes are ` +
            "read at the next refresh), or move it out of the root",
      );
    }
    if (
      !isClosed && limitRetryTimer === undefined &&
      lostFolders.some((lost) => lost.why === WATCH_LIMIT || PASSING_LOSSES.has(lost.why))
    ) {
      // No watcher, no event: the watch is tried again (and what changed read) now and then.
      limitRetryTimer = setTimeout(() => {
        limitRetryTimer = undefined;
        isRewatchPending = true;
        running ??= drain();
      }, options.watchLimitRetryMs ?? WATCH_LIMIT_RETRY_MS);
    }
  }

  /** Reads the events of `list` until each closes (see `armRescanCheck`). */
  function readEvents(list: readonly WatchHandle[]): Promise<void> {
    return Promise.all(list.map(async (watcher) => {
      for await (const event of watcher) {
        // Any event (an access one too) ran Deno's event filter: a split watch may have lost
        // others meanwhile (see `armRescanCheck`).
        armRescanCheck();
        if (event.flag === "rescan") debouncer.add(watched);
        if (event.kind === "access") continue;
        debouncer.add(event.paths);
      }
    })).then(() => {}, (error: unknown) => {
      if (!isClosed) logErrorLine(`skillgate: file watching stopped: ${describeError(error)}`);
    });
  }

  /**
   * While split, a burst of events can lose others for good (measured under
   * Deno 2.9.6 as nobody: 4-15 of 30 edits 300 ms apart at 6,000 folders,
   * none 2 s apart). Deno's one event filter per process runs on the
   * watcher's only thread and, for every event, opens each path of every
   * watcher that does not take it (`is_same_file`) and the event's path as
   * often: each open is an IN_OPEN event (its watch mask holds it), so one
   * event of a split root of 6,000 folders queues ~12,000 of them while the
   * thread is busy, the kernel queue (`fs.inotify.max_queued_events`, 16,384
   * here) overflows, and the edits arriving meanwhile are dropped (the
   * overflow's rescan event has no path, and the filter drops it). A loss
   * happens only while the filter runs, that is, around an event this
   * watcher receives: so once no event came for `RESCAN_CHECK_QUIET_MS` (or
   * `RESCAN_CHECK_MAX_WAIT_MS` after the first event under a steady stream), the
   * split roots are rescanned (skills whose SKILL.md kept its size and
   * modification time are reused), and a lost edit is served then. Not split
   * (one path a root), no check runs unless the watched paths are many
   * (symlinked skills' folders, {@linkcode MANY_WATCHED_PATHS}): all are
   * rescanned then.
   */
  function armRescanCheck(): void {
    const isSplit = flatFolders.size > 0 || unwatched.length > 0;
    if (isClosed || (!isSplit && watchedPathCount < MANY_WATCHED_PATHS)) return;
    lastEventMs = performance.now();
    // Armed already: the timer sees this event when it fires (an event costs no timer, so a flood
    // of them does not keep the thread clearing and setting timers).
    if (rescanCheckTimer !== undefined) return;
    // A steady stream of events (a log file, a build) must not push the check out forever (r9),
    // nor make it a poll: each check the stream forces waits twice as long (3 s, 6 s ... 48 s),
    // until one comes after a quiet time again.
    const maxWaitMs = RESCAN_CHECK_MAX_WAIT_MS * 2 ** Math.min(streamChecks, MAX_STREAM_DOUBLINGS);
    rescanCheckDueMs ??= lastEventMs + maxWaitMs;
    const onDue = () => {
      const nowMs = performance.now();
      const quietLeftMs = lastEventMs + RESCAN_CHECK_QUIET_MS - nowMs;
      const dueLeftMs = (rescanCheckDueMs ?? nowMs) - nowMs;
      if (quietLeftMs > 0 && dueLeftMs > 0) {
        rescanCheckTimer = setTimeout(onDue, Math.ceil(Math.min(quietLeftMs, dueLeftMs)));
        return;
      }
      const isForced = quietLeftMs > 0;
      rescanCheckTimer = undefined;
      rescanCheckDueMs = undefined;
      streamChecks = isForced ? streamChecks + 1 : 0;
      // Roots only when not split: a linked skill's folder given as a path marks it touched, so
      // every linked skill would be read again instead of reused by stat (r9).
      const isSplitNow = flatFolders.size > 0 || unwatched.length > 0;
      const roots = isSplitNow ? splitRoots() : localRoots();
      // Background work: it gives way to client requests (a change from the watcher ends that).
      if (!isClosed && roots.length > 0) void schedule(roots, RESCAN_GIVE_WAY);
    };
    rescanCheckTimer = setTimeout(
      onDue,
      Math.max(0, Math.min(RESCAN_CHECK_QUIET_MS, rescanCheckDueMs - lastEventMs)),
    );
  }

  /** The watched paths that are local roots (not linked skills' folders). */
  function localRoots(): string[] {
    const roots = new Set(store.base().roots.map((root) => root.path));
    return watched.filter((path) => roots.has(path));
  }

  /** The watched paths (roots, linked skills' folders) that hold a flat-watched or lost folder. */
  function splitRoots(): string[] {
    const split = [...flatFolders, ...unwatched.map((lost) => join(lost.root, lost.folder))];
    return watched.filter((path) =>
      split.some((folder) => folder === path || folder.startsWith(`${path}/`))
    );
  }

  /** Watching was given up: the roots are read every `pollMs` from now on (one stderr line). */
  function onWatchGivenUp(sinceMs: number, why: string): void {
    if (isClosed || isPolling) return;
    isPolling = true;
    watchers = [];
    skillFileWatcher = null;
    skillFilePaths = [];
    clearTimeout(rescanCheckTimer);
    rescanCheckTimer = undefined;
    clearTimeout(limitRetryTimer);
    clearTimeout(rootReturnTimer);
    clearTimeout(goneRetryTimer);
    logErrorLine(
      `skillgate: live refresh does not watch the roots (${why}); it reads them every ` +
        `${pollMs / 1000} s instead`,
    );
    const poll = (fromMs: number) => {
      pollTimer = setTimeout(() => {
        pollTimer = undefined;
        if (isClosed) return;
        const nowMs = Date.now();
        const changed = skillsChangedSince(store.base(), fromMs);
        void schedule([...localRoots(), ...changed], RESCAN_GIVE_WAY).finally(() => {
          if (!isClosed) poll(nowMs);
        });
      }, pollMs);
    };
    // What changed since the last isolate answered is read at once, then every pollMs.
    void schedule([...localRoots(), ...skillsChangedSince(store.base(), sinceMs)], RESCAN_GIVE_WAY);
    poll(Date.now());
  }

  // Every watcher is opened in the watch isolate (a FIFO holding Deno's watcher thread stops
  // only it), unless a test opens them here with its own opener.
  const backend: WatchBackend = options.watchFs !== undefined
    ? inProcessWatch(options.watchFs)
    : startWatchIsolate({
      ...options.watchIsolate,
      starter: options.watchIsolate?.starter !== undefined
        ? options.watchIsolate.starter
        : options.watchIsolate?.parent !== undefined
        ? trustedPartStarter(options.watchIsolate.parent)
        : directStarter(await isolateReadPaths(store.base())),
      onGivenUp: onWatchGivenUp,
      onLost: (answered) => {
        if (isClosed || isPolling) return;
        // A listed file removed before the service resolved it (NotCapable: it did not resolve)
        // is no folder the watch lacks: the roots' watch reports its events (s15 hX: it was
        // said "live refresh is off" and made the watch look split for good).
        const all = answered.filter((folder) => !skillFilesAsked.has(folder.root));
        const lost = all.filter((folder) => folder.why !== GONE_WHY);
        onGone(all.filter((folder) => folder.why === GONE_WHY));
        // Keyed by root + folder: a folder said lost again adds nothing (review r17, hA-5).
        unwatched = withLost(unwatched, lost);
        warnLost(lost);
      },
    });
  const initial = await watchPaths(store.base());
  try {
    adopt(initial, await backend.openWatchers(initial));
  } catch (error) {
    if (!isWatchStopped(error)) {
      backend.close();
      throw error;
    }
    // Replaced or given up while the first watch opened: its handler plans or polls.
    watched = initial;
  }
  // The skill-file watcher is open (or known not to be) once this returns.
  await skillFileChain;
  // A root missing at start is served once it is made (as one removed later).
  armRootReturnCheck();

  // A door that finds a listed file refused reads that skill again (see `stale_hint.ts`).
  const unsetStaleHandler = setStaleSkillHandler((skillDir) => {
    if (!isClosed) debouncer.add([skillDir]);
  });

  // A root reached through a link that is re-pointed: no event comes (its watch is on the folder
  // it led to), so its configured path is resolved again every 2 s, and read again on a move
  // (discovery then names the restart a new place needs; s16).
  const rootLinks = startRootLinkCheck({
    roots: store.base().roots.filter((root) => root.source === undefined).map((root) => root.path),
    ...(options.rootRealsAtStart === undefined ? {} : { realsAtStart: options.rootRealsAtStart }),
    onMoved: (moved) => {
      if (isClosed) return;
      logErrorLine(movedRootLine(moved));
      void schedule([moved.path]);
    },
  });

  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    rootLinks.stop();
    unsetStaleHandler();
    debouncer.close();
    clearTimeout(rescanCheckTimer);
    rescanCheckTimer = undefined;
    clearTimeout(limitRetryTimer);
    clearTimeout(rootReturnTimer);
    clearTimeout(pollTimer);
    clearTimeout(shortageRetryTimer);
    clearTimeout(goneRetryTimer);
    for (const watcher of watchers) watcher.close();
    skillFileWatcher?.close();
    await backend.close();
    await pump;
    await skillFileChain;
    await skillFilePump;
    await running;
  };
  return {
    get watched() {
      return watched;
    },
    get unwatched() {
      return unwatched;
    },
    refresh: (paths, refreshOptions) => schedule(paths, refreshOptions?.giveWay),
    rebuildAll: () => {
      isFreshBuildPending = true;
      running ??= drain();
      return running;
    },
    abandon: () => {
      isClosed = true;
      rootLinks.stop();
      unsetStaleHandler();
      debouncer.close();
      clearTimeout(rescanCheckTimer);
      rescanCheckTimer = undefined;
      clearTimeout(limitRetryTimer);
      clearTimeout(rootReturnTimer);
      clearTimeout(pollTimer);
      clearTimeout(shortageRetryTimer);
      clearTimeout(goneRetryTimer);
      backend.close();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The whole catalog built again from its roots with the caps as they are now. */
async function freshBuild(
  previous: Catalog,
  options: LiveRefreshOptions,
): Promise<{ catalog: Catalog; isFullRescan: boolean; loaded: number }> {
  const catalog = await buildCatalog(previous.roots, options.caps, {
    ...(options.load === undefined ? {} : { load: options.load }),
  });
  return { catalog, isFullRescan: true, loaded: catalog.skills.length };
}

/** What a refresh's paths changed in a split watch (see `splitChange`). */
interface SplitChange {
  /** A lost folder can be read now, or a flat folder cannot: the watch is planned again. */
  readonly isReplanNeeded: boolean;
  /** Sub-folders added to flat-watched folders (each to be watched on its own). */
  readonly added: readonly string[];
  /** Sub-folders removed from flat-watched folders (their watches died with them). */
  readonly removed: readonly string[];
  /** The sub-folders each touched flat-watched folder has now. */
  readonly entries: ReadonlyMap<string, readonly string[]>;
}

const NO_SPLIT_CHANGE: SplitChange = {
  isReplanNeeded: false,
  added: [],
  removed: [],
  entries: new Map(),
};

/**
 * The files of every local skill to list in the skill-file watcher, sorted:
 * every listed file when they fit in `budget` paths, else every SKILL.md
 * when those fit, else none.
 */
function skillFileList(catalog: Catalog, budget: number): string[] {
  const rootPaths = new Set(
    catalog.roots.filter((root) => root.from !== "remote").map((root) => root.path),
  );
  const local = catalog.skills.filter((skill) =>
    skill.source === undefined && rootPaths.has(skill.root)
  );
  if (local.length > budget) return [];
  const all = local.flatMap((skill) => skill.files.map((file) => join(skill.dir, file.path)));
  const list = all.length <= budget
    ? all
    : local.map((skill) => join(skill.dir, skill.skillMdFile));
  return [...new Set(list)].sort();
}

/**
 * A folder's identity: device, inode and birth time (ext4 gives a folder
 * removed and made again at once the same inode), or null when it cannot be
 * read. Folders made within the same millisecond on one inode look the same.
 */
function folderIdentity(folder: string): string | null {
  try {
    const info = Deno.statSync(folder);
    return `${info.dev}:${info.ino}:${info.birthtime?.getTime() ?? ""}`;
  } catch {
    return null;
  }
}

/** Whether `path` is `folder` or inside it. */
function isAtOrUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** Whether `path` is a folder now (followed, as a root is). */
function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Whether `folder` is no longer a sub-folder of its parent (which can still be read). */
function isGone(folder: string): boolean {
  return subfolders(dirname(folder))?.includes(folder) === false;
}

/** The sub-folders (not symlinks) of `folder`, sorted, or null when it cannot be read. */
function subfolders(folder: string): string[] | null {
  try {
    return [...Deno.readDirSync(folder)]
      .filter((entry) => entry.isDirectory && !entry.isSymlink)
      .map((entry) => join(folder, entry.name))
      .sort();
  } catch {
    return null;
  }
}

/**
 * Quiet time after a split watch's last event before its roots are rescanned,
 * in ms: longer than Deno's filter takes for one event at 10,000 watched
 * folders (~0.6 s at 6,000 measured), so the rescan reads after the window in
 * which an edit could be lost.
 */
const RESCAN_CHECK_QUIET_MS = 1_000;

/**
 * Longest a check waits under a steady stream of events, in ms (from the
 * first one), doubled for each check in a row the stream forced, at most
 * {@linkcode MAX_STREAM_DOUBLINGS} times (48 s).
 */
const RESCAN_CHECK_MAX_WAIT_MS = 3_000;

/** Doublings of the longest wait under a steady stream (r9: a poll every 3 s cost 26% of a core). */
const MAX_STREAM_DOUBLINGS = 4;

/**
 * How the check's rescan gives way to client requests (as the worker's other
 * background work, `BACKGROUND_GIVE_WAY`): each pause waits for 50 ms
 * without a request, at most 250 ms.
 */
const RESCAN_GIVE_WAY = { quietMs: 50, maxWaitMs: 250 } as const;

/**
 * Watched paths from which a watch that is not split is rescanned after a
 * burst too: ~2 opens a path per event fill the kernel queue (16,384 events
 * by default) within a burst of ~32 events.
 */
const MANY_WATCHED_PATHS = 256;

/**
 * Most paths the skill-file watcher lists (see `rewatchSkillFiles`). Deno's
 * filter opens each listed path about twice per event (each open an IN_OPEN
 * and an IN_CLOSE for the kernel queue, 16,384 events by default): at 64
 * paths a burst must queue ~60 events at once before the queue could
 * overflow, where 256 paths (where the rescan after a burst starts) would
 * take ~16.
 */
// Back on since the watch isolate (session 9): session 8 turned it off (0) because a second
// `Deno.watchFs` in the serving thread hung it whenever the first watcher's thread was stuck in a
// FIFO's open; now every watcher opens in the isolate, which alone would stop.
const SKILL_FILE_WATCH_MAX_PATHS = 64;

/**
 * Why a folder was lost when the loss may pass by itself (out of descriptors
 * or memory, review r18 r18-1): retried as the watch limit is.
 */
const PASSING_LOSSES: ReadonlySet<string> = new Set([
  "EMFILE",
  "ENFILE",
  "ENOMEM",
  "ListingFailed",
]);

/**
 * What the owner can do about a folder the watch lost, by the reason
 * `inotify/watch_tree.ts` names (others: as for an unreadable folder).
 */
const LOST_REMEDIES: Readonly<Record<string, string>> = {
  PermissionDenied: "Make the folder readable",
  TooDeep: "Move it to 64 folder levels or fewer below the root",
  NotUtf8: "Rename it to a UTF-8 name",
  NameTooLong: "Shorten its path to under 4,096 bytes",
  TooManyEntries: "Move some of its entries into sub-folders",
  // Out of descriptors when it was watched (review r18, r18-1).
  EMFILE: "Raise skillgate's open-file limit (ulimit -n)",
  ENFILE: "Raise the system's open-file limit (fs.file-max)",
  ListingFailed: "Raise skillgate's open-file limit (ulimit -n), or make the folder readable",
  // One inode reached by two paths (a bind mount of a folder another root holds: r18-2).
  SameFolderElsewhere: "Configure one of the two paths that reach it (a bind mount) as a root",
};

/**
 * `known` with the folders of `lost` it does not name yet (by root and
 * folder). O(known + lost).
 */
function withLost(
  known: readonly LostFolder[],
  lost: readonly LostFolder[],
): readonly LostFolder[] {
  const keys = new Set(known.map((at) => `${at.root}\0${at.folder}`));
  const added = lost.filter((at) => {
    const key = `${at.root}\0${at.folder}`;
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
  return added.length === 0 ? known : [...known, ...added];
}

/**
 * How often a root the user's inotify watch limit left unwatched is tried
 * again and read, in ms (a rescan reusing unchanged skills by stat).
 */
const WATCH_LIMIT_RETRY_MS = 30_000;

/**
 * How often a removed local root is looked for again, in ms: one `stat` per
 * gone root, so cheap enough to notice its return within seconds.
 */
const ROOT_RETURN_CHECK_MS = 5_000;

/**
 * Re-plans in a row (within {@linkcode ROOT_RETURN_CHECK_MS} of each other)
 * for folders the watch found gone at their walk and a folder again at its
 * answer, before the next waits that long: a folder swapped at every arming
 * costs a walk a check, not a loop.
 */
const MAX_GONE_REPLANS = 3;

/** How long replaced watchers are still read before they close, in ms. */
const RETIRE_MS = 250;

/**
 * How often the roots are read once watching was given up (stuck watch
 * isolates past `watch_isolate.ts`'s bound), in ms: a rescan reusing
 * unchanged skills by stat, as after a watch limit.
 */
const POLL_MS = 30_000;

/**
 * How long after a rebuild that met a descriptor shortage its paths are read
 * again, in ms (a shortage lasts while concurrent reads hold descriptors).
 */
const SHORTAGE_RETRY_MS = 1_000;

/**
 * Starts live refresh as the configuration asks: nothing under `--static`
 * (the catalog stays as built at start-up), else watching every root.
 *
 * @param store The store the server answers from.
 * @param config The configuration (`static`, `catalog`, caps).
 * @param parent The serving worker's `self`: the trusted part starts its
 *   watch isolates. @default none: this thread starts them
 * @param rootRealPaths Where each local root led when the server started
 *   (`StartMessage.rootRealPaths`). @default none: the root link check looks
 *   when it starts
 * @returns The running refresh, or null under `--static`.
 *
 * Requires `--allow-read` on the roots.
 */
export async function startConfiguredRefresh(
  store: CatalogStore,
  config: Config,
  parent?: TrustedPeer,
  rootRealPaths?: readonly RootPaths[],
): Promise<LiveRefresh | null> {
  if (config.options.static) return null;
  return await startLiveRefresh(store, {
    ...(rootRealPaths === undefined
      ? {}
      : { rootRealsAtStart: new Map(rootRealPaths.map((root) => [root.path, root.realPath])) }),
    caps: config.caps,
    isToolDescriptionMode: catalogChannel(config) === "tool-description",
    ...(parent === undefined ? {} : { watchIsolate: { parent } }),
  });
}
