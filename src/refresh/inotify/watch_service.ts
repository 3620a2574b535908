/**
 * The trusted part's inotify watch: one inotify descriptor and one anchored
 * watch tree (`watch_tree.ts`) for the whole process (the serving worker's
 * live refresh and the owner files' watch), driven by one loop on the
 * trusted thread: read and handle every queued event, run a slice of walk
 * steps, yield to the event loop; with nothing to do, wait in `poll(2)` on
 * the inotify descriptor and an eventfd (a nonblocking FFI call: it waits on
 * a thread of its own, this thread keeps running), woken by the eventfd when
 * a watch is asked for or the service stops. inotify opens nothing, so a FIFO
 * in a root holds no thread (Deno's `watchFs` thread did, for good).
 *
 * Each attached port speaks the watch protocol of `../watch_messages.ts`
 * (the serving worker's side, `../watch_isolate.ts`, is unchanged): `open-plan`
 * / `open-one` subscribe the asked folders (each allowed only when, as written,
 * it is a clean absolute path at or under an allowed path (checked before
 * any file-system call), and its real path is at or under an allowed path's
 * real path (or under an allowed path as written, which a real path is only
 * when no link leads there); any other is answered lost, `NotCapable`, whether or not it
 * exists), answered `opened` once their first walk is over; events go
 * back in one `events` batch per turn, each "something changed at P" (P
 * under the asked path); an overflow asks for a rescan (`flag: "rescan"`);
 * a folder lost later (the watch budget, a folder made unreadable) is told
 * in a `lost` message.
 *
 * What is asked for says what it is: `open-plan` and a recursive `open-one`
 * ask for folders (live refresh's roots), so a path that resolved but is no
 * folder at the check after (removed, swapped for a file or link), or whose
 * folder the walk does not find where it resolved (gone at the open, moved
 * before the location check: `watch_tree.ts`), or that does not resolve
 * because its own entry is missing where its parent resolves inside the
 * roots (removed before this resolve; a path leading outside, or through a
 * parent that does not resolve, stays `NotCapable`), is answered lost,
 * {@linkcode GONE_WHY}, never with no watch and no loss (s15 hX: a root
 * removed and made again while its watch was armed stayed unwatched in
 * silence). A flat `open-one` may list files (the skill-file list): a path
 * there that is no folder gets no watch and no loss (its folder's watch
 * reports its events by name); a flat folder gone at the walk is said gone.
 *
 * Requires `--allow-all` (the trusted part: `/proc`, `--allow-ffi`).
 *
 * @module
 */

import { type Libc, openLibc } from "./libc.ts";
import { type ChangeKind, createWatchTree, GONE_WHY, type WatchTree } from "./watch_tree.ts";
import type { CarriedEvent, FromWatchIsolate, ToWatchIsolate } from "../watch_messages.ts";
import type { LostFolder } from "../watch_plan.ts";
import { createEventBatch, type EventBatch } from "./event_batch.ts";

/**
 * Longest stretch of walk steps before the loop yields to the event loop, in
 * ms (as the catalog build's slices, `DEFAULT_SLICE_MS`): a folder step costs
 * a few system calls (an open from its held parent, the watch, the location,
 * the listing), and a fixed 256-folder slice was measured holding the
 * trusted thread 433 ms under load 10 (when each step opened from `/`).
 */
export const WALK_SLICE_MS = 10;

/** `openat` calls walk steps make between two clock reads within a slice (a step from a held parent: 1). */
const OPENS_PER_CLOCK_READ = 32;

/**
 * Watches one port may hold open at once (live refresh holds 1-3: the roots'
 * watch, its replacement while a re-plan opens, the skill-file list); past
 * it an open is answered `open-failed` (a worker cannot grow the trusted
 * part's state without bound).
 */
export const MAX_WATCHES_PER_PORT = 64;

/** Paths one open may ask for (the roots and linked skills' real folders of 10,000 skills fit). */
export const MAX_PATHS_PER_OPEN = 65_536;

/** The process's inotify watch. */
export interface WatchService {
  /**
   * Answers the watch protocol on `port` (the serving worker's end, or the
   * owner files' watch), confined to `allowed`.
   *
   * @param port The port (started here).
   * @param allowed Absolute folders (as configured and real) a watch may be at or under.
   * @returns Detaches the port: its watches end, the port closes.
   */
  attach(port: MessagePort, allowed: readonly string[]): () => void;
  /** Watches held now (all ports). */
  readonly watchCount: number;
  /** Stops the loop, removes every watch, closes the descriptors. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@linkcode startWatchService}. */
export interface WatchServiceOptions {
  /** The tree's watch bound (tests lower it). @default MAX_TREE_WATCHES */
  readonly maxWatches?: number;
  /** Distinct events in one `events` message (tests lower it). @default MAX_EVENTS_PER_BATCH */
  readonly maxEventsPerBatch?: number;
  /**
   * Called with a path asked for right after its real path was resolved and
   * confined, before it is found a folder and watched (attack tests remove or
   * swap it there, at the worst moment: a folder asked for is then answered
   * lost, `Gone`; a path of a flat `open-one` with no watch and no loss, as
   * a file of the skill-file list is). @default none
   */
  readonly afterResolve?: (path: string) => void;
}

interface Subscription {
  readonly peer: Peer;
  readonly watch: number;
  /** Request id to answer once every root was walked, or null once answered. */
  answerId: number | null;
  pendingRoots: number;
  readonly lost: LostFolder[];
  readonly pathCount: number;
}

interface Peer {
  readonly port: MessagePort;
  readonly queued: EventBatch;
  isFlushQueued: boolean;
  readonly subscriptions: Set<number>;
}

/**
 * Starts the service (its loop waits until a watch is asked for).
 *
 * @param options Bounds.
 * @returns The service, or null where inotify cannot be used (not Linux, no
 *   libc, no `--allow-ffi`, `inotify_init1` refused): the caller reads the
 *   roots periodically instead.
 *
 * Requires `--allow-all`.
 */
export function startWatchService(options: WatchServiceOptions = {}): WatchService | null {
  const libc = openLibc();
  if (libc === null) return null;
  const inotifyFd = libc.inotifyInit();
  const wakeFd = libc.eventFd();
  if (inotifyFd < 0 || wakeFd < 0) {
    if (inotifyFd >= 0) libc.close(inotifyFd);
    if (wakeFd >= 0) libc.close(wakeFd);
    libc.unload();
    return null;
  }
  return runService(libc, inotifyFd, wakeFd, options);
}

function runService(
  libc: Libc,
  inotifyFd: number,
  wakeFd: number,
  options: WatchServiceOptions,
): WatchService {
  const subscriptions = new Map<number, Subscription>();
  let nextWatch = 1;
  let isClosed = false;
  const wakeBytes = new Uint8Array(8);

  function post(peer: Peer, message: FromWatchIsolate): void {
    try {
      peer.port.postMessage(message);
    } catch {
      // The peer is gone; its watches end when it detaches.
    }
  }

  function push(watch: number, event: CarriedEvent): void {
    const sub = subscriptions.get(watch);
    // Nothing goes out before the `opened` answer: the worker reads the roots after it.
    if (sub === undefined || sub.answerId !== null) return;
    const { peer } = sub;
    peer.queued.add(event);
    if (!peer.isFlushQueued) {
      peer.isFlushQueued = true;
      setTimeout(() => flush(peer), 0);
    }
  }

  function flush(peer: Peer): void {
    peer.isFlushQueued = false;
    if (peer.queued.size === 0) return;
    const events = peer.queued.take();
    post(peer, { type: "events", events });
  }

  function answer(sub: Subscription): void {
    if (sub.answerId === null || sub.pendingRoots > 0) return;
    const id = sub.answerId;
    sub.answerId = null;
    post(sub.peer, {
      type: "opened",
      id,
      watches: [sub.watch],
      lost: [...sub.lost],
      flat: [],
      flatEntries: [],
      pathCount: sub.pathCount,
    });
  }

  const tree: WatchTree = createWatchTree(libc, inotifyFd, {
    change(watch: number, kind: ChangeKind, path: string) {
      push(watch, { watch, kind, paths: [path] });
    },
    rescan(watch: number, _rootPath: string) {
      push(watch, { watch, kind: "other", paths: [], flag: "rescan" });
    },
    lost(watch: number, rootPath: string, folder: string, why: string) {
      const sub = subscriptions.get(watch);
      if (sub === undefined) return;
      const lost = { root: rootPath, folder, why };
      if (sub.answerId !== null) sub.lost.push(lost);
      else post(sub.peer, { type: "lost", watch, lost: [lost] });
    },
    walked(watch: number) {
      const sub = subscriptions.get(watch);
      if (sub === undefined) return;
      sub.pendingRoots--;
      answer(sub);
    },
  }, options.maxWatches === undefined ? {} : { maxWatches: options.maxWatches });

  let loop: Promise<void> | null = null;
  let isPolling = false;

  function wake(): void {
    if (isPolling) libc.signal(wakeFd);
    loop ??= run().finally(() => (loop = null));
  }

  async function run(): Promise<void> {
    while (!isClosed) {
      tree.drain();
      if (tree.hasWork || tree.isDrainCut) {
        const untilMs = performance.now() + WALK_SLICE_MS;
        while (tree.step(OPENS_PER_CLOCK_READ) && performance.now() < untilMs);
        // A slice is over: requests, timers and messages get their turn.
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        continue;
      }
      if (subscriptions.size === 0) return;
      // A deferred overflow re-walk (hA-6) wakes the loop when due.
      const dueMs = tree.rewalkDueInMs;
      isPolling = true;
      const ready = await libc.pollReadable(
        [inotifyFd, wakeFd],
        dueMs === null ? -1 : Math.ceil(dueMs) + 1,
      );
      isPolling = false;
      if (ready === null) {
        // poll itself failed (never seen): a short pause, then read again.
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (ready[1]) libc.read(wakeFd, wakeBytes);
    }
  }

  function subscribe(
    peer: Peer,
    id: number,
    paths: readonly string[],
    allowed: readonly string[],
    isFlat: boolean,
    areFolders: boolean,
  ): void {
    const watch = nextWatch++;
    const sub: Subscription = {
      peer,
      watch,
      answerId: id,
      pendingRoots: 0,
      lost: [],
      pathCount: paths.length,
    };
    subscriptions.set(watch, sub);
    peer.subscriptions.add(watch);
    const allowedReals = realPaths(allowed);
    const seen = new Set<string>();
    for (const path of paths) {
      // Confined as written BEFORE any file-system call (review r17, hA-2): the trusted part's
      // realpath/stat of a worker-chosen path would tell the worker whether it exists.
      if (!isLexicallyUnder(path, allowed)) {
        sub.lost.push({ root: path, folder: ".", why: NOT_CAPABLE });
        continue;
      }
      // Then by its real path: a link inside a root leading out (or nowhere: the same answer,
      // whether or not its target exists) is refused alike.
      const real = realPathOf(path);
      if (real === null && areFolders && isGoneInside(path, allowed, allowedReals)) {
        // A folder asked for, not there where its parent resolves inside the roots (removed
        // between the worker's ask and this resolve): said gone, as after it (s15 hX).
        sub.lost.push({ root: path, folder: ".", why: GONE_WHY });
        continue;
      }
      // A real path (no link in it) lexically under an allowed path as written is inside it too:
      // the allowed root's own real path may not have resolved a moment ago (removed and made
      // again meanwhile, s15 hX); one leading through a link there never reads so.
      if (real === null || !(isUnderAny(real, allowedReals) || isLexicallyUnder(real, allowed))) {
        sub.lost.push({ root: path, folder: ".", why: NOT_CAPABLE });
        continue;
      }
      options.afterResolve?.(path);
      if (!isFolder(real)) {
        // A folder asked for is gone or swapped since it resolved: said (the worker reads it
        // again and asks again for what is there now), never a watch that holds nothing (s15 hX).
        if (areFolders) sub.lost.push({ root: path, folder: ".", why: GONE_WHY });
        // A file (the skill-file list): its folder's watch reports its events by name.
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      sub.pendingRoots++;
      tree.subscribe(watch, path, real, isFlat);
    }
    answer(sub);
    wake();
  }

  function unsubscribe(peer: Peer, watch: number): void {
    if (!peer.subscriptions.delete(watch)) return;
    subscriptions.delete(watch);
    tree.unsubscribe(watch);
  }

  return {
    attach(port, allowed) {
      const peer: Peer = {
        port,
        queued: createEventBatch(options.maxEventsPerBatch),
        isFlushQueued: false,
        subscriptions: new Set(),
      };
      port.onmessage = (event: MessageEvent<ToWatchIsolate>) => {
        const message = event.data;
        if (isClosed || typeof message !== "object" || message === null) return;
        switch (message.type) {
          case "close":
            if (!Array.isArray(message.watches)) return;
            for (const watch of message.watches) unsubscribe(peer, watch);
            return;
          case "open-plan":
          case "open-one": {
            if (!Number.isSafeInteger(message.id) || !isStringList(message.paths)) return;
            if (peer.subscriptions.size >= MAX_WATCHES_PER_PORT) {
              post(peer, {
                type: "open-failed",
                id: message.id,
                error: {
                  name: "Error",
                  message: `${MAX_WATCHES_PER_PORT} watches are open already`,
                },
              });
              return;
            }
            const isFlat = message.type === "open-one" && message.recursive !== true;
            // Only a flat open-one may list files; every other open asks for folders.
            subscribe(peer, message.id, message.paths, allowed, isFlat, !isFlat);
            return;
          }
        }
      };
      return () => {
        for (const watch of [...peer.subscriptions]) unsubscribe(peer, watch);
        port.onmessage = null;
        port.close();
      };
    },
    get watchCount() {
      return tree.watchCount;
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      subscriptions.clear();
      libc.signal(wakeFd);
      await loop;
      tree.clear();
      libc.close(inotifyFd);
      libc.close(wakeFd);
      libc.unload();
    },
  };
}

/** The one answer for a path the worker may not watch (outside, unclean, or not resolvable). */
export const NOT_CAPABLE = "NotCapable";

/** Whether `path` is `at` or below it (both absolute and clean). */
function isUnderAny(path: string, ats: readonly string[]): boolean {
  return ats.some((at) => path === at || path.startsWith(at === "/" ? "/" : `${at}/`));
}

/**
 * Whether `path`, as written, is a clean absolute path (no empty, `.` or
 * `..` segment, no NUL, no trailing `/`) at or under one of `allowed` (as
 * written; a trailing `/` of an allowed path is ignored). Touches no file
 * system: the worker-supplied path is confined before anything resolves it.
 *
 * @param path A path the worker asked to watch.
 * @param allowed The roots, as configured and real (`watchRoots` in `worker_set.ts`).
 * @returns True only for a clean path under an allowed one.
 */
export function isLexicallyUnder(path: string, allowed: readonly string[]): boolean {
  if (!path.startsWith("/") || path.includes("\0")) return false;
  if (path !== "/") {
    const segments = path.slice(1).split("/");
    if (segments.some((part) => part === "" || part === "." || part === "..")) return false;
  }
  const clean = allowed
    .filter((at) => at.startsWith("/"))
    .map((at) => (at.length > 1 && at.endsWith("/") ? at.slice(0, -1) : at));
  return isUnderAny(path, clean);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** The real path of `path` (a root or a folder under it, already confined as written), or null. */
function realPathOf(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

/**
 * Whether `path` (confined as written, its real path not resolvable) is
 * missing inside the roots: its parent resolves, and the entry it names
 * there is at or under an allowed path (real, or as written: a root itself
 * removed) and absent, or no link now (`lstat`: made again since, it was
 * gone at the resolve; a dangling link is not gone).
 * Everything looked at is inside the roots, which the worker reads anyway:
 * the answer says nothing about a path outside them (review r17, hA-2);
 * a path whose parent leads outside (or nowhere) stays `NotCapable`.
 */
function isGoneInside(
  path: string,
  allowed: readonly string[],
  allowedReals: readonly string[],
): boolean {
  const slash = path.lastIndexOf("/");
  const parent = realPathOf(slash === 0 ? "/" : path.slice(0, slash));
  if (parent === null) return false;
  const at = `${parent === "/" ? "" : parent}/${path.slice(slash + 1)}`;
  if (!isUnderAny(at, allowedReals) && !isLexicallyUnder(at, allowed)) return false;
  try {
    // Back already (a folder made again since the resolve, or a file there now): gone all the
    // same for this answer; a link (dangling, or leading out) stays NotCapable.
    return !Deno.lstatSync(at).isSymlink;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

function realPaths(paths: readonly string[]): string[] {
  return paths.map(realPathOf).filter((path): path is string => path !== null);
}

function isFolder(real: string): boolean {
  try {
    return Deno.statSync(real).isDirectory;
  } catch {
    return false;
  }
}
