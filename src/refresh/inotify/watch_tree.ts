/**
 * The anchored inotify watch tree of the trusted part: every watched folder
 * is reached by no-follow opens of one name at a time
 * (`openat(fd, name, O_PATH|O_DIRECTORY|O_NOFOLLOW)`): a root from `/` down
 * through its real path, a sub-folder from its parent's descriptor (the
 * inode that was checked: review r17, hA-1), or from the nearest ancestor
 * whose descriptor is held, else from `/`. Its watch is added through
 * `/proc/self/fd/<fd>` (so it lands on that very inode, whatever the path
 * leads to by then), and kept only when the kernel's path for the
 * descriptor, read AFTER the watch was added, is still the expected one
 * (root's real path + names): a parent moved out since its check yields a
 * child whose location differs, never watched. A folder's descriptor is held
 * only while steps of its sub-folders are queued, at most
 * {@linkcode MAX_HELD_DESCRIPTORS} at once (walks go depth first, so that is
 * the depth being walked); the tree keeps `wd -> (parent, name)` only
 * (10,000 skills are 20,000-30,000 folders). Folders deeper than
 * {@linkcode MAX_WATCH_DEPTH} below their root are not watched (said lost,
 * `TooDeep`): a walk costs O(folders) opens, a step at most O(depth bound).
 *
 * Listing a folder to find its sub-folders reads the open descriptor
 * (`/proc/self/fd/<fd>`, `src/files/fd_listing.ts`), never a path, and its
 * names are used ONLY to plan further watches (each opened and checked again
 * from the root): no listed name is ever reported. What is reported
 * ({@linkcode TreeSink.change}) is an event's own name under a folder still
 * in the tree, or a folder a create event named, joined to the subscriber's
 * root path: "something changed at P", which the serving worker reads again
 * through its own gate.
 *
 * Event order is the safety: one inotify descriptor, one ordered queue,
 * handled in order. A folder moved or removed (its own `IN_MOVE_SELF` /
 * `IN_DELETE_SELF` / `IN_IGNORED`, or `IN_MOVED_FROM` / `IN_DELETE` of its
 * name in its watched parent) drops its whole subtree (`inotify_rm_watch`)
 * before any later event is handled; an event of a dropped watch is
 * discarded. A root's own folder dropped so is walked again at once: a
 * folder made (or renamed) in its place is watched; none there is said
 * lost, {@linkcode GONE_WHY}, as a root not found at any walk (a root has
 * no watched parent to tell either). `IN_Q_OVERFLOW` (events lost, a move-out among them perhaps)
 * drops every watch, walks every root again and then asks each subscriber
 * to rescan its roots.
 *
 * Walks run in slices ({@linkcode WatchTree.step}): the owner of the tree
 * reads and handles the queued events before each slice, so a drop always
 * comes before the walk goes on, and the thread keeps answering between
 * slices. Per event the work is O(depth) (a report) or O(dropped subtree).
 *
 * One inotify instance gives one watch per folder (inode): a folder reached
 * from two roots (nested roots, or a flat subscription of a folder inside a
 * root) is held once, in the tree of the outermost root walked over it (an
 * inner root's folder reached from above is adopted into the outer tree).
 * Reports fan out by real path (review r17, hA-3): an event at real path P
 * goes to every subscription whose root's real path holds P, re-based on the
 * path that subscription names its root by; a flat subscription hears of its
 * root folder's own entries only. A root covered by another's tree walks
 * again (and rescans) when that tree is dropped by an unsubscribe.
 *
 * Requires `--allow-all` in the calling thread (`/proc` reads) and the
 * loaded libc (`libc.ts`, `--allow-ffi`).
 *
 * @module
 */

import { readFolderDirectlySync } from "../../files/fd_listing.ts";
import { folderOpener } from "../../files/folder_beneath.ts";
import {
  IN_ATTRIB,
  IN_CREATE,
  IN_DELETE,
  IN_DELETE_SELF,
  IN_IGNORED,
  IN_ISDIR,
  IN_MOVE_SELF,
  IN_MOVED_FROM,
  IN_MOVED_TO,
  IN_Q_OVERFLOW,
  IN_UNMOUNT,
  type InotifyEvent,
  parseEvents,
  READ_BUFFER_BYTES,
  WATCH_MASK,
} from "./events.ts";
import {
  EBADF,
  ELOOP,
  ENOENT,
  ENOSPC,
  ENOTDIR,
  errnoName,
  type Libc,
  O_CLOEXEC,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_PATH,
} from "./libc.ts";

/** What a change report says happened (as live refresh reads Deno's kinds). */
export type ChangeKind = "create" | "modify" | "remove" | "rename";

/** Where the tree's reports go (the host fans them out to its subscribers). */
export interface TreeSink {
  /** Something changed at `path` (a subscriber's root path + names from events). */
  change(subscriber: number, kind: ChangeKind, path: string): void;
  /** Events may have been lost under `rootPath`: read it again whole. */
  rescan(subscriber: number, rootPath: string): void;
  /**
   * A folder could not be watched: `folder` relative to `rootPath` ("." for
   * the root), `why` the error's name, or `WatchLimit` (the user's inotify
   * watch budget, or the tree's own bound: the whole root is then unwatched).
   */
  lost(subscriber: number, rootPath: string, folder: string, why: string): void;
  /** The first walk of `rootPath` for `subscriber` is over (watches held). */
  walked(subscriber: number, rootPath: string): void;
}

/** Options of {@linkcode createWatchTree}. */
export interface WatchTreeOptions {
  /** Watches held at most (the tree's own bound; ENOSPC before it acts the same). */
  readonly maxWatches?: number;
  /**
   * Called with a folder's expected path right after its watch was added
   * and its location checked, before it is listed (attack tests swap
   * folders there, at the worst moment). @default none
   */
  readonly afterCheck?: (path: string) => void;
  /**
   * Least time between two overflow re-walks, in ms: an overflow within it of
   * the previous re-walk's start drops every watch at once (as always) but
   * walks again only when it is over, once for every overflow meanwhile.
   * @default {@linkcode MIN_REWALK_GAP_MS}
   */
  readonly minRewalkGapMs?: number;
  /** The clock, in ms (tests drive it). @default `performance.now()` */
  readonly nowMs?: () => number;
}

/**
 * Least time between two re-walks after inotify queue overflows, in ms
 * (review r17, hA-6: a root writer can overflow the queue at will; each
 * re-walk is O(folders) on the trusted thread and a full rescan in the worker).
 */
export const MIN_REWALK_GAP_MS = 1_000;

/**
 * Most watches one tree holds: 10,000 skills are 20,000-30,000 folders; the
 * kernel's own budget (`fs.inotify.max_user_watches`) usually stops earlier.
 */
export const MAX_TREE_WATCHES = 131_072;

/**
 * Folder levels below a root that are watched; a deeper folder is said lost
 * (`TooDeep`). A skill's folders are a few levels deep; 64 bounds what one
 * step may cost when it re-anchors from `/` (review r17, hA-1).
 */
export const MAX_WATCH_DEPTH = 64;

/**
 * Descriptors the tree holds at once for folders whose sub-folders are being
 * walked (each is the parent the children are opened from). Past it a child
 * opens from the nearest held ancestor, or from `/`.
 */
export const MAX_HELD_DESCRIPTORS = 64;

/** The reason named for a root the watch budget left unwatched (as `watch_plan.ts`'s). */
export const WATCH_LIMIT_WHY = "WatchLimit";

/**
 * The reason named for a folder whose name is not UTF-8 (events and listings
 * decode names with U+FFFD for invalid bytes, so the name read is not the
 * folder's; a name holding U+FFFD itself is treated alike, as the serving
 * listing skips such names).
 */
export const NOT_UTF8_WHY = "NotUtf8";

const REPLACED_NAME_CHAR = "\uFFFD";

/** Linux's PATH_MAX, in bytes: a longer path cannot be read back from `/proc/self/fd`. */
const PATH_MAX_BYTES = 4096;

const encoder = new TextEncoder();

/**
 * The reason named for a root (an asked folder) that is not there when its
 * walk opens it: gone, no folder now (a file, a symlink), or moved between
 * its open and its location check. A sub-folder gone is told by its watched
 * parent's events; a root has no watched parent, so without this a root
 * removed (or swapped) while its watch is armed and made again just after
 * was left unwatched in silence (s15 hX). The subscriber reads the path
 * again and asks again if a folder is there now.
 */
export const GONE_WHY = "Gone";

/** The reason named for a folder deeper than {@linkcode MAX_WATCH_DEPTH} below its root. */
export const TOO_DEEP_WHY = "TooDeep";

/**
 * The reason named for a folder watched whose entries could not be listed
 * where it is (its sub-folders are not watched): this process's or the
 * system's descriptor table full, out of memory (review r18, r18-1).
 */
export const LISTING_FAILED_WHY = "ListingFailed";

/**
 * The reason named for a folder that is the very folder (one inode) the
 * tree already holds at another real path (a bind mount: review r18,
 * r18-2). One inotify descriptor gives an inode one watch, and its events
 * name the path it is held at; this path is read again periodically instead.
 */
export const SAME_FOLDER_WHY = "SameFolderElsewhere";

/**
 * errno values of an open or a watch that mean the folder is not there
 * (gone, not a folder, a symlink refused): nothing to watch, and its own
 * events say what happened. Any other error leaves a folder there
 * unwatched: it is said lost (review r18, r18-1).
 */
const GONE_ERRNOS: ReadonlySet<number> = new Set([-ENOENT, -ENOTDIR, -ELOOP]);

/** The anchored watch tree over one inotify descriptor. */
export interface WatchTree {
  /**
   * Watches `real` (an absolute real path, no symlink in it) for
   * `subscriber`, whose reports name it `path`. The walk is queued.
   *
   * @param flat Watch the root folder only, none of its sub-folders
   *   (the owner files' folder). @default false
   */
  subscribe(subscriber: number, path: string, real: string, flat?: boolean): void;
  /** Ends every subscription of `subscriber`; roots nobody holds lose their watches. */
  unsubscribe(subscriber: number): void;
  /** Handles parsed events in order (`drain` reads and calls this). */
  handle(events: readonly InotifyEvent[]): void;
  /**
   * Reads queued events from the descriptor and handles them, at most
   * `maxReads` reads of {@linkcode READ_BUFFER_BYTES} (a steady flood must
   * not hold the thread). @default 64 @returns Events read (a read that
   * filled the bound leaves more queued: call again after a turn).
   */
  drain(maxReads?: number): number;
  /** Whether the last `drain` stopped at its bound (events may be left queued). */
  readonly isDrainCut: boolean;
  /**
   * Runs queued folder steps (depth first) until they made `maxOpens`
   * `openat` calls (a step that opens nothing counts as one; at least one
   * step runs). A step costs 1 open from a held parent, up to the depth
   * bound + the root's depth when it re-anchors. @returns Whether work is left.
   */
  step(maxOpens: number): boolean;
  /** Whether walk steps are queued (or an overflow's re-walk is due now). */
  readonly hasWork: boolean;
  /**
   * In how many ms a deferred overflow re-walk is due (the caller wakes
   * then), or null when none waits.
   */
  readonly rewalkDueInMs: number | null;
  /** Watches held now. */
  readonly watchCount: number;
  /** The path (real, for tests) each watched folder had when added, by wd. */
  watchedFolders(): Map<number, string>;
  /** Removes every watch (the descriptor stays open: the caller closes it). */
  clear(): void;
}

interface Root {
  readonly real: string;
  readonly components: readonly string[];
  /** Subscribers that watch the root folder only (its sub-folders' events are not theirs). */
  readonly flatSubscribers: Set<number>;
  /** subscriber -> the path its reports name the root by. */
  readonly subscribers: Map<number, string>;
  /** Subscribers whose first walk is not over yet. */
  readonly awaiting: Set<number>;
  node: Node | null;
  /** Set while the watch budget left it unwatched (until subscribed again). */
  isLimited: boolean;
  /** Set after an overflow: the subscribers rescan once the walk is over. */
  isRescanDue: boolean;
  /**
   * Steps of this root's walks (first walk, re-walk after an overflow) still
   * queued; steps an event queued (a folder made or moved in, and what is
   * below it) never count: they cannot hold back `walked` (review r17, hA-4).
   */
  pendingSteps: number;
  /** False once nobody subscribes it (its queued steps do nothing). */
  isListed: boolean;
}

interface Node {
  readonly wd: number;
  /** The watched parent; null for the top of a tree (its root's folder). */
  parent: Node | null;
  name: string;
  /** The root whose walk holds it (the outermost one over it). */
  root: Root;
  readonly children: Map<string, Node>;
}

interface Step {
  readonly root: Root;
  /** The watched parent (null: the root itself). */
  readonly parent: Node | null;
  readonly name: string;
  /** Report the folder as created once watched (a create event named it). */
  readonly isNew: boolean;
  /** Part of a walk of the root (counted in `pendingSteps`), not of an event's. */
  readonly isWalk: boolean;
  /** Set when queued while the parent's descriptor was held (it counts this step). */
  holdsParent?: boolean;
}

/** A held descriptor of a watched folder and its queued sub-folder steps. */
interface Held {
  readonly fd: number;
  pending: number;
}

const AT_FDCWD = -100;
const OPEN_FLAGS = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

/**
 * Creates a tree over the inotify descriptor `inotifyFd`.
 *
 * @param libc The loaded calls.
 * @param inotifyFd An `inotify_init1(IN_NONBLOCK)` descriptor.
 * @param sink Where reports go.
 * @param options Bounds (tests lower them).
 * @returns The tree (empty).
 */
export function createWatchTree(
  libc: Libc,
  inotifyFd: number,
  sink: TreeSink,
  options: WatchTreeOptions = {},
): WatchTree {
  const maxWatches = options.maxWatches ?? MAX_TREE_WATCHES;
  const roots = new Map<string, Root>();
  const nodes = new Map<number, Node>();
  /**
   * Queued folder steps, each stack run last in first out (depth first: few
   * held descriptors): the roots' walks, and what events asked for. `step`
   * takes from both in turn, so neither holds the other back.
   */
  const walkSteps: Step[] = [];
  const eventSteps: Step[] = [];
  let isEventTurn = false;
  /** wd -> the folder's checked descriptor, held while its sub-folder steps are queued. */
  const held = new Map<number, Held>();
  /** `openat` calls made (the step budget's unit). */
  let opens = 0;
  const minRewalkGapMs = options.minRewalkGapMs ?? MIN_REWALK_GAP_MS;
  const nowMs = options.nowMs ?? (() => performance.now());
  /** When the last overflow re-walk began (ms), and whether one waits for its turn. */
  let lastRewalkAtMs = -Infinity;
  let isRewalkWaiting = false;
  /** Folders said lost, by their watched parent (or their root, for a root): names. */
  const saidLost = new Map<object, Set<string>>();
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  let isDrainCut = false;

  function queue(step: Step): void {
    if (step.isWalk) step.root.pendingSteps++;
    if (step.parent !== null) {
      const parentFd = held.get(step.parent.wd);
      if (parentFd !== undefined) {
        parentFd.pending++;
        step.holdsParent = true;
      }
    }
    (step.isWalk ? walkSteps : eventSteps).push(step);
  }

  /** The next step: from the walks and the events' stacks in turn. */
  function nextStep(): Step | undefined {
    isEventTurn = !isEventTurn;
    const first = isEventTurn ? eventSteps : walkSteps;
    return first.pop() ?? (isEventTurn ? walkSteps : eventSteps).pop();
  }

  /** A step is over: its parent's descriptor is closed once no step needs it. */
  function releaseParent(step: Step): void {
    if (step.holdsParent !== true || step.parent === null) return;
    const parentFd = held.get(step.parent.wd);
    if (parentFd === undefined || --parentFd.pending > 0) return;
    held.delete(step.parent.wd);
    libc.close(parentFd.fd);
  }

  function closeHeld(wd: number): void {
    const found = held.get(wd);
    if (found === undefined) return;
    held.delete(wd);
    libc.close(found.fd);
  }

  function openAt(dirFd: number, name: string): number {
    opens++;
    return libc.openAt(dirFd, name, OPEN_FLAGS);
  }

  /** The names from the root down to `node` (none for the root). */
  function isFlat(root: Root): boolean {
    return root.flatSubscribers.size === root.subscribers.size;
  }

  function namesOf(node: Node | null): string[] {
    const names: string[] = [];
    for (let at = node; at !== null && at.parent !== null; at = at.parent) names.push(at.name);
    return names.reverse();
  }

  /**
   * Calls `each` for every root whose real path holds `root.real` + `names`
   * (the root itself and any nested root), with the names below that root.
   * O(roots).
   */
  function fanOut(
    root: Root,
    names: readonly string[],
    each: (at: Root, below: readonly string[]) => void,
  ): void {
    const full = [...root.components, ...names];
    for (const at of roots.values()) {
      const depth = at.components.length;
      if (depth > full.length) continue;
      let isUnder = true;
      for (let i = 0; i < depth && isUnder; i++) isUnder = at.components[i] === full[i];
      if (isUnder) each(at, full.slice(depth));
    }
  }

  function report(root: Root, names: readonly string[], kind: ChangeKind): void {
    fanOut(root, names, (at, below) => {
      const rel = below.join("/");
      for (const [subscriber, path] of at.subscribers) {
        if (below.length > 1 && at.flatSubscribers.has(subscriber)) continue;
        sink.change(subscriber, kind, rel === "" ? path : `${path}/${rel}`);
      }
    });
  }

  /** Removes `node` and everything under it from the tree and the kernel. O(subtree). */
  function drop(node: Node): void {
    if (nodes.get(node.wd) !== node) return;
    if (node.parent === null) node.root.node = null;
    else if (node.parent.children.get(node.name) === node) node.parent.children.delete(node.name);
    const stack = [node];
    while (stack.length > 0) {
      const at = stack.pop()!;
      nodes.delete(at.wd);
      saidLost.delete(at);
      closeHeld(at.wd);
      libc.rmWatch(inotifyFd, at.wd);
      for (const child of at.children.values()) stack.push(child);
    }
  }

  function dropRoot(root: Root): void {
    if (root.node !== null) drop(root.node);
  }

  /**
   * Opens the folder `names` below `root` one no-follow name at a time from
   * `/`: a descriptor, or `-errno`.
   */
  function openChain(root: Root, names: readonly string[]): number {
    const fd = openAt(AT_FDCWD, "/");
    if (fd < 0) return fd;
    const opened = openNames(fd, [...root.components, ...names]);
    libc.close(fd);
    return opened;
  }

  /**
   * Opens `names` one no-follow name at a time below `baseFd` (left open): a descriptor or
   * `-errno`. No names is the folder `baseFd` itself, opened again (`.`): `/` as a watched folder
   * (the owner files' nearest existing ancestor when every folder above them is missing) was
   * answered EBADF, "not applied live (errno 9)" (s15 review).
   */
  function openNames(baseFd: number, names: readonly string[]): number {
    if (names.length === 0) return openAt(baseFd, ".");
    let fd = baseFd;
    for (const name of names) {
      const next = openAt(fd, name);
      if (fd !== baseFd) libc.close(fd);
      if (next < 0) return next;
      fd = next;
    }
    return fd === baseFd ? -EBADF : fd;
  }

  /**
   * Opens the folder `names` (below `root`; its parent `parent`) from the
   * nearest ancestor whose checked descriptor is held, else from `/`.
   */
  function openFolder(root: Root, parent: Node | null, names: readonly string[]): number {
    let depth = names.length - 1;
    for (let at = parent; at !== null; at = at.parent, depth--) {
      const found = held.get(at.wd);
      if (found !== undefined && nodes.get(at.wd) === at) {
        return openNames(found.fd, names.slice(depth));
      }
    }
    return openChain(root, names);
  }

  /**
   * `root`'s folder was not there at its walk (gone, not a folder, moved):
   * each of its subscribers is told (`GONE_WHY`), not through `lose` (an
   * outer root holding it hears of it by its own events). Said at each walk
   * that finds it so: a walk is a subscribe, an overflow's re-walk (at most
   * one a second) or an uncovered root's, never a loop of its own.
   */
  function rootGone(root: Root): void {
    for (const [subscriber, path] of root.subscribers) sink.lost(subscriber, path, ".", GONE_WHY);
  }

  function limit(root: Root): void {
    if (root.isLimited) return;
    root.isLimited = true;
    dropRoot(root);
    for (const [subscriber, path] of root.subscribers) {
      sink.lost(subscriber, path, ".", WATCH_LIMIT_WHY);
    }
    walkUncovered();
  }

  /**
   * Roots a dropped tree covered (nested in a root unsubscribed or stopped by
   * the budget) are watched no more: each is walked again on its own, then
   * rescanned (its events meanwhile were not read). A root whose folder is
   * missing costs one open. O(roots).
   */
  function walkUncovered(): void {
    for (const root of roots.values()) {
      if (root.node !== null || root.isLimited || !root.isListed) continue;
      root.isRescanDue = true;
      queue({ root, parent: null, name: "", isNew: false, isWalk: true });
    }
  }

  function finishStep(step: Step): void {
    const { root } = step;
    if (!step.isWalk) return;
    root.pendingSteps--;
    if (root.pendingSteps > 0) return;
    for (const subscriber of root.awaiting) {
      const path = root.subscribers.get(subscriber);
      if (path !== undefined) sink.walked(subscriber, path);
    }
    root.awaiting.clear();
    if (root.isRescanDue) {
      root.isRescanDue = false;
      for (const [subscriber, path] of root.subscribers) sink.rescan(subscriber, path);
    }
  }

  /** One folder: opened anchored, watched, checked, listed (sub-folders queued). */
  function runStep(step: Step): void {
    const { parent } = step;
    // The parent was dropped (moved or removed) since: its events say what happened.
    if (parent !== null && nodes.get(parent.wd) !== parent) return;
    // The parent's tree (it may have been adopted into an outer root's since the step was queued).
    const root = parent === null ? step.root : parent.root;
    // A folder is said lost once until it is watched (or its parent dropped): a mode flipped in
    // a loop is one message, not one per flip (review r17, hA-5).
    const lostOwner: object = parent ?? root;
    const loseOnce = (why: string) => {
      let said = saidLost.get(lostOwner);
      if (said === undefined) saidLost.set(lostOwner, said = new Set());
      if (said.has(step.name)) return;
      said.add(step.name);
      lose(root, names, why);
    };
    if (parent === null && (root.node !== null || !root.isListed)) return;
    if (root.isLimited || root.subscribers.size === 0) return;
    const names = parent === null ? [] : [...namesOf(parent), step.name];
    // A folder there that cannot be watched is said lost, and a create event's folder is
    // reported all the same: the worker reads it through its own gate (review r18, r18-1).
    const cannotWatch = (why: string) => {
      loseOnce(why);
      if (step.isNew) report(root, names, "create");
    };
    if (names.length > MAX_WATCH_DEPTH) {
      // Never opened: a chain deeper than this would make each step cost its depth.
      cannotWatch(TOO_DEEP_WHY);
      return;
    }
    if (step.name.includes(REPLACED_NAME_CHAR)) {
      // Not UTF-8 (decoded with U+FFFD): that name opens nothing, or another folder (r17 hA-L2).
      loseOnce(NOT_UTF8_WHY);
      return;
    }
    const expected = names.length === 0 ? root.real : `${root.real}/${names.join("/")}`;
    const fd = openFolder(root, parent, names);
    if (fd < 0) {
      // Gone, not a folder, or a symlink now (refused, never followed): nothing to watch. Any
      // other error (EACCES, EMFILE, ENFILE, ENOMEM...) leaves a folder there unwatched: lost.
      // A sub-folder gone is told by its parent's events; a root gone is said (s15 hX).
      if (!GONE_ERRNOS.has(fd)) cannotWatch(errnoName(fd));
      else if (parent === null) rootGone(root);
      return;
    }
    let isHeld = false;
    try {
      if (nodes.size >= maxWatches) return limit(root);
      const at = `/proc/self/fd/${fd}`;
      const wd = libc.addWatch(inotifyFd, at, WATCH_MASK);
      if (wd === -ENOSPC) return limit(root);
      if (wd < 0) {
        if (!GONE_ERRNOS.has(wd)) cannotWatch(errnoName(wd));
        return;
      }
      let location: string | null = null;
      let unreadable: string | null = null;
      try {
        location = Deno.readLinkSync(at);
      } catch (error) {
        // The kernel cannot name it (a path past PATH_MAX): never watched, but said (r17 hA-L1).
        unreadable = error instanceof Error ? error.name : "Error";
      }
      const existing = nodes.get(wd);
      let node: Node;
      if (
        existing !== undefined && location === expected && isHeldElsewhere(existing, expected, fd)
      ) {
        // One inode reached by two real paths (a bind mount): its events name the path it is
        // held at only, so this path would hear nothing: said lost (review r18, r18-2).
        cannotWatch(SAME_FOLDER_WHY);
        return;
      }
      if (existing !== undefined) {
        const isOtherTop = existing.parent === null && existing.root !== root;
        if (parent === null || !isOtherTop || location !== expected) {
          // Already held: in another root's tree that covers this root (its reports fan out
          // here by path), or in this tree under another name (moved inside the root, its events
          // not handled yet: they drop it and name the new place). Nothing to add. A root whose
          // folder moved since its open (to a place watched already) is said gone (s15 hX).
          if (parent === null && location !== expected && unreadable === null) rootGone(root);
          return;
        }
        // Another root's folder reached from above: held in this (outer) tree from now on, and
        // listed below if that root watched it flat.
        adopt(existing, parent, step.name, root);
        node = existing;
      } else {
        if (location !== expected) {
          // Moved or swapped since the open: never watched, never listed.
          libc.rmWatch(inotifyFd, wd);
          if (unreadable !== null) {
            cannotWatch(
              encoder.encode(expected).length >= PATH_MAX_BYTES ? "NameTooLong" : unreadable,
            );
          } else if (parent === null) {
            // A root moved away (its parent is not watched: nothing else would say so).
            rootGone(root);
          }
          return;
        }
        node = { wd, parent, name: step.name, root, children: new Map() };
        nodes.set(wd, node);
        if (parent === null) {
          root.node = node;
        } else {
          const stale = parent.children.get(step.name);
          if (stale !== undefined) drop(stale);
          parent.children.set(step.name, node);
        }
      }
      // Watchable again: a later loss is said again.
      saidLost.get(lostOwner)?.delete(step.name);
      if (step.isNew) report(root, names, "create");
      if (isFlat(root)) return;
      options.afterCheck?.(expected);
      // The listing is the descriptor's own folder (the one just checked); its names only plan
      // watches, each opened and checked again from the root.
      let isListedThere = false;
      const read = readFolderDirectlySync(
        { fd, maxStats: 0 },
        (at) => (isListedThere = at === expected),
        folderOpener()?.calls ?? null,
      );
      if (read === null) {
        // Moved since (its events say so), or not listed where it is (EMFILE, ENFILE, ENOMEM):
        // its sub-folders are not watched, said lost (r18-1).
        if (isListedThere) loseOnce(LISTING_FAILED_WHY);
        return;
      }
      if (read.tooManyEntries !== undefined) {
        // Its sub-folders are not listed in one read: they stay unwatched (named once).
        loseOnce("TooManyEntries");
        return;
      }
      const folders = read.entries.filter((entry) => entry.kind === "dir");
      if (folders.length === 0) return;
      // Its sub-folders are opened from this checked descriptor while their steps are queued.
      if (held.size < MAX_HELD_DESCRIPTORS && !held.has(node.wd)) {
        held.set(node.wd, { fd, pending: 0 });
        isHeld = true;
      }
      for (const entry of folders) {
        queue({ root, parent: node, name: entry.name, isNew: false, isWalk: step.isWalk });
      }
    } finally {
      if (!isHeld) libc.close(fd);
    }
  }

  /**
   * Whether `existing` (the node the kernel gave this folder's wd) is held at
   * another real path that still leads to the folder open on `fd` (a bind
   * mount), rather than at a path it left (moved, its events not handled
   * yet: they drop it). `expected` is where this step found it. Only when a
   * wd is found held at another path: that path opened anchored (no-follow,
   * one name at a time, as every watch) and both descriptors' inodes compared.
   */
  function isHeldElsewhere(existing: Node, expected: string, fd: number): boolean {
    const names = namesOf(existing);
    const heldAt = names.length === 0
      ? existing.root.real
      : `${existing.root.real}/${names.join("/")}`;
    if (heldAt === expected) return false;
    const otherFd = openChain(existing.root, names);
    if (otherFd < 0) return false;
    try {
      const there = Deno.statSync(`/proc/self/fd/${otherFd}`);
      const here = Deno.statSync(`/proc/self/fd/${fd}`);
      return there.dev === here.dev && there.ino === here.ino;
    } catch {
      return false;
    } finally {
      libc.close(otherFd);
    }
  }

  function lose(root: Root, names: readonly string[], why: string): void {
    fanOut(root, names, (at, below) => {
      const folder = below.length === 0 ? "." : below.join("/");
      for (const [subscriber, path] of at.subscribers) sink.lost(subscriber, path, folder, why);
    });
  }

  /**
   * Moves another root's top node (its folder, reached now from above by
   * `root`'s walk) and its subtree into `root`'s tree under `parent`. The
   * other root is then covered (its reports fan out by path). O(subtree).
   */
  function adopt(node: Node, parent: Node, name: string, root: Root): void {
    if (node.root.node === node) node.root.node = null;
    node.parent = parent;
    node.name = name;
    const stale = parent.children.get(name);
    if (stale !== undefined && stale !== node) drop(stale);
    parent.children.set(name, node);
    const stack = [node];
    while (stack.length > 0) {
      const at = stack.pop()!;
      at.root = root;
      for (const child of at.children.values()) stack.push(child);
    }
  }

  function overflow(): void {
    // Every watch goes at once (a move-out may be among the lost events); the walk waits its
    // turn: at most one re-walk a MIN_REWALK_GAP_MS, every overflow meanwhile folded into it.
    for (const root of roots.values()) {
      dropRoot(root);
      root.isRescanDue = true;
      root.isLimited = false;
    }
    isRewalkWaiting = true;
    startRewalkIfDue();
  }

  function startRewalkIfDue(): void {
    if (!isRewalkWaiting || nowMs() - lastRewalkAtMs < minRewalkGapMs) return;
    isRewalkWaiting = false;
    lastRewalkAtMs = nowMs();
    for (const root of roots.values()) {
      root.isRescanDue = true;
      queue({ root, parent: null, name: "", isNew: false, isWalk: true });
    }
  }

  function handleOne(event: InotifyEvent): void {
    if ((event.mask & IN_Q_OVERFLOW) !== 0) return overflow();
    const node = nodes.get(event.wd);
    // A dropped watch's events (and the IN_IGNORED its removal queues) are discarded.
    if (node === undefined) return;
    const { root } = node;
    if ((event.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) !== 0) {
      report(root, namesOf(node), "remove");
      const isTop = node.parent === null;
      drop(node);
      // A root's own folder went (removed, moved away, renamed over by a swap): no watched
      // parent tells of one made in its place, so the root is walked again at once: watched if a
      // folder is there now (its subscribers read it for the `remove` above), else said Gone
      // (s15 hX: a root removed and made again at once, or swapped, stayed deaf for good).
      if (isTop && root.isListed && !root.isLimited && root.node === null) {
        queue({ root, parent: null, name: "", isNew: false, isWalk: true });
      }
      return;
    }
    if (event.name === "") {
      report(root, namesOf(node), "modify");
      return;
    }
    const names = [...namesOf(node), event.name];
    if ((event.mask & (IN_MOVED_FROM | IN_DELETE)) !== 0) {
      const child = node.children.get(event.name);
      if (child !== undefined) drop(child);
      report(root, names, (event.mask & IN_DELETE) !== 0 ? "remove" : "rename");
      return;
    }
    const isFolder = (event.mask & IN_ISDIR) !== 0;
    if (isFolder && !isFlat(root) && (event.mask & (IN_CREATE | IN_MOVED_TO)) !== 0) {
      // Watched, then reported as created (what it got before its watch held is read then).
      const child = node.children.get(event.name);
      if (child !== undefined) drop(child);
      queue({ root, parent: node, name: event.name, isNew: true, isWalk: false });
      return;
    }
    if (
      isFolder && !isFlat(root) && (event.mask & IN_ATTRIB) !== 0 && !node.children.has(event.name)
    ) {
      // A sub-folder not watched (unreadable when walked) changed its mode: tried again.
      queue({ root, parent: node, name: event.name, isNew: true, isWalk: false });
      return;
    }
    const kind: ChangeKind = (event.mask & (IN_CREATE | IN_MOVED_TO)) !== 0
      ? ((event.mask & IN_MOVED_TO) !== 0 ? "rename" : "create")
      : "modify";
    report(root, names, kind);
  }

  return {
    subscribe(subscriber, path, real, flat = false) {
      // One root per folder (one inotify watch per inode): walked whole while any subscriber
      // watches it whole; a flat subscriber hears of the root folder's own entries only.
      const key = real;
      let root = roots.get(key);
      if (root === undefined) {
        root = {
          real,
          components: real.split("/").filter((part) => part !== ""),
          flatSubscribers: new Set(),
          subscribers: new Map(),
          awaiting: new Set(),
          node: null,
          isLimited: false,
          isRescanDue: false,
          pendingSteps: 0,
          isListed: true,
        };
        roots.set(key, root);
      }
      const wasFlat = root.subscribers.size > 0 && isFlat(root);
      root.subscribers.set(subscriber, path);
      if (flat) root.flatSubscribers.add(subscriber);
      else root.flatSubscribers.delete(subscriber);
      // A flat root now watched whole: walked again from the top (its sub-folders were never).
      if (wasFlat && !flat) dropRoot(root);
      root.awaiting.add(subscriber);
      // A new subscription tries a root the budget stopped again (the worker's 30 s retry).
      root.isLimited = false;
      queue({ root, parent: null, name: "", isNew: false, isWalk: true });
    },
    unsubscribe(subscriber) {
      let isDropped = false;
      for (const [key, root] of roots) {
        root.subscribers.delete(subscriber);
        root.flatSubscribers.delete(subscriber);
        root.awaiting.delete(subscriber);
        if (root.subscribers.size === 0) {
          isDropped ||= root.node !== null;
          dropRoot(root);
          root.isListed = false;
          roots.delete(key);
        }
      }
      if (isDropped) walkUncovered();
    },
    handle(events) {
      for (const event of events) handleOne(event);
    },
    drain(maxReads = 64) {
      let count = 0;
      isDrainCut = false;
      for (let reads = 0;; reads++) {
        if (reads >= maxReads) {
          isDrainCut = true;
          return count;
        }
        const read = libc.read(inotifyFd, buffer);
        if (read <= 0) return count;
        const events = parseEvents(buffer.subarray(0, read));
        count += events.length;
        for (const event of events) handleOne(event);
      }
    },
    step(maxOpens) {
      startRewalkIfDue();
      for (let spent = 0; spent < maxOpens;) {
        const step = nextStep();
        if (step === undefined) break;
        const before = opens;
        try {
          runStep(step);
        } finally {
          releaseParent(step);
          finishStep(step);
        }
        spent += Math.max(1, opens - before);
      }
      return walkSteps.length + eventSteps.length > 0;
    },
    get isDrainCut() {
      return isDrainCut;
    },
    get hasWork() {
      startRewalkIfDue();
      return walkSteps.length + eventSteps.length > 0;
    },
    get rewalkDueInMs() {
      return isRewalkWaiting ? Math.max(0, lastRewalkAtMs + minRewalkGapMs - nowMs()) : null;
    },
    get watchCount() {
      return nodes.size;
    },
    watchedFolders() {
      const out = new Map<number, string>();
      for (const node of nodes.values()) {
        const names = namesOf(node);
        out.set(
          node.wd,
          names.length === 0 ? node.root.real : `${node.root.real}/${names.join("/")}`,
        );
      }
      return out;
    },
    clear() {
      for (const root of roots.values()) {
        dropRoot(root);
        root.isListed = false;
      }
      roots.clear();
      walkSteps.length = 0;
      eventSteps.length = 0;
      for (const found of held.values()) libc.close(found.fd);
      held.clear();
    },
  };
}
