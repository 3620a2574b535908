/**
 * The trusted part's watch over the owner's two files (the configuration
 * file and `overrides.json`, in one folder): after an edit settles, both are
 * read again, reviewed (`live_config.ts`) and, when the outcome changed, the
 * new overlay is handed to the worker and each new problem is said on
 * stderr. The worker cannot read these files; it only receives the overlay.
 *
 * The folder is watched flat through an inotify service of this watch's own
 * (`src/refresh/inotify/watch_service.ts`: its own inotify descriptor and
 * kernel queue, one watch: the folder, or its nearest existing ancestor
 * while it is missing), never the one live refresh's roots use: whoever can
 * write in a root could overflow that queue and so drop the owner's
 * narrowing edit (review r17, hA-7). inotify opens nothing, so a FIFO made in the watched
 * folder (or, while waiting for it, in a parent such as a shared `/tmp`)
 * holds no thread (Deno's watchFs thread did, and blocked the thread that
 * answers the worker's requests). Both files are read again on any sign
 * that events were lost (a `rescan` event: the queue overflowed; a folder
 * said `lost`). The folder removed or moved away (its watch ends with its
 * inode: a `remove` event at the folder's own path) is waited for again from
 * its nearest existing ancestor, then both files read (review r18, r18-4: a
 * folder replaced whole left the watch deaf); one that goes or is swapped
 * while its watch is being armed (the service then answers a watch that
 * holds nothing, and says nothing) is found by its device and inode, checked
 * before the ask and after the answer, and asked for again (session 14,
 * hW). A change no event reports (a link on the way re-pointed: the old
 * folder neither moved nor removed) is found by the same device and inode,
 * checked every {@linkcode OWNER_POLL_MS} while a watch holds. Where inotify
 * cannot be used (no instance left: `fs.inotify.max_user_instances`, review
 * r18 r18-3; not Linux), or cannot hold the folder (the user's watch budget
 * spent, r17 hA-8), both files are read every {@linkcode OWNER_POLL_MS}
 * instead and one stderr line says so: a narrowing edit is never lost
 * silently.
 *
 * Both files are also read at once when the watch opens; serve's requests
 * wait for that first read (review r17, hB-1). It accepts only files it
 * could read and parse, as start-up does (session 13, hA): until it does,
 * each read that finds one it cannot (not a regular file, unreadable, too
 * large, not valid) goes to `onUnread`, and serve refuses the waiting
 * requests rather than serve on start-up's overrides; later reads (the
 * file's change, `readWanted`) try again. After it, a broken edit keeps the
 * last good configuration, as ever.
 *
 * @module
 */

import { basename, dirname } from "node:path";
import type { Caps } from "../../caps.ts";
import { createPathDebouncer } from "../../refresh/debounce.ts";
import type { CatalogOverlay, SkillOverrides } from "../../skills/overrides.ts";
import type { Problem } from "../../skills/problem.ts";
import { keptSetByView, type LiveConfigState, overlayOf, reviewOwnerFiles } from "./live_config.ts";
import { readOwnerFile } from "./load_config.ts";
import { dropStaleSetByView } from "./view_override_write.ts";
import { ConfigFileError } from "./json_document.ts";
import type { SetByView } from "./overrides_file.ts";
import type { WatchBackend, WatchHandle } from "../../refresh/watch_open.ts";
import { directStarter, serviceStarter, startWatchIsolate } from "../../refresh/watch_isolate.ts";
import { NOT_CAPABLE, type WatchService } from "../../refresh/inotify/watch_service.ts";
import { GONE_WHY } from "../../refresh/inotify/watch_tree.ts";

/** The overrides in force and the switches a settings view turned off. */
export interface OverridesInForce {
  readonly overrides: SkillOverrides;
  readonly setByView: SetByView;
}

/** A running watch; `close()` stops it. */
export interface OwnerFilesWatch extends AsyncDisposable {
  close(): Promise<void>;
  /** What is in force now. */
  inForce(): OverridesInForce;
  /**
   * Puts overrides the trusted part itself wrote in force (a settings view's
   * checked write, `view_override_write.ts`) and posts the overlay at once;
   * the review that follows the file's change then finds nothing new.
   */
  adopt(next: OverridesInForce): void;
  /** Runs `task` between reviews, never during one (so a write and a review never interleave). */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /**
   * The worker asks for the files (a request waits for them, or the last
   * wait was refused): before the first accepted read, both files are read
   * again now (its outcome goes to `onFirstRead` or `onUnread`); after it,
   * `onFirstRead` is called again (the worker may have missed it).
   */
  readWanted(): void;
}

/**
 * How often both files are read when inotify cannot watch their folder, in
 * ms: a narrowing edit (a skill turned off, a grant revoked) is in force
 * within it (two small reads; an unchanged outcome posts nothing). Also how
 * often a watched folder is checked to be still the one there (a few stats).
 */
export const OWNER_POLL_MS = 2_000;

/** Watches asked for in a row whose folder went before it was watched, before polling instead. */
const MAX_VANISHED_RETRIES = 8;

/** Options of {@linkcode watchOwnerFiles}. */
export interface WatchOwnerFilesOptions {
  /** Receives each new overlay and the caps in force (post them to the worker). */
  readonly onChange: (update: { overlay: CatalogOverlay; caps: Caps }) => void;
  /** Receives one line per new problem (print it to stderr). */
  readonly log: (line: string) => void;
  /** Quiet period after the last event, in ms. @default 200 */
  readonly quietMs?: number;
  /**
   * An inotify service to watch through instead of one of this watch's own
   * (tests: a lowered watch budget); null where inotify cannot be used.
   * Production passes none: a service shared with the roots' watch shares
   * its kernel queue, which a root writer can overflow (review r17, hA-7).
   * @default a service of this watch's own (closed with the watch)
   */
  readonly service?: WatchService | null;
  /**
   * How often both files are read when inotify cannot watch, and how often
   * the folder watched (or the parent waited on) is checked to be still the
   * one there (a link on the way re-pointed sends no event), in ms.
   * @default {@linkcode OWNER_POLL_MS}
   */
  readonly pollMs?: number;
  /**
   * Called once both files were first read and accepted: a read made at once
   * when the watch is created (not after the quiet period, not waiting for
   * the watch to be live), its overlay posted first when it changed anything
   * (review r17, hB-1: serve's requests wait for it). A read that found a
   * file it could not read or accept goes to `onUnread` instead, and this
   * waits for a later read (the file's next change, or `readWanted`).
   * @default none
   */
  readonly onFirstRead?: () => void;
  /**
   * Called after each read before `onFirstRead` that did not accept both
   * files (`config-invalid`: not a regular file, unreadable, too large, not
   * valid; or the read threw), with the paths of those files. Fails closed
   * (session 13, hA): as at start-up, which refuses to start on such a file,
   * nothing may be served on the overrides read before it (the owner may
   * have turned a skill off in it): serve refuses the waiting requests. Its
   * problems were logged first. @default none
   */
  readonly onUnread?: (paths: readonly string[]) => void;
}

/**
 * Watches the folder of the configuration file. When that folder does not
 * exist yet (the owner never wrote a configuration), its nearest existing
 * parent is watched until it appears (`skillgate override` creates it), so
 * the first overrides apply live too; the folder removed or replaced (also
 * while its watch is armed, or by a link on the way re-pointed: checked
 * every `pollMs`) is waited for the same way. Returns null when no folder on
 * the way exists.
 * Where inotify cannot watch (no instance left, not Linux, the folder lost
 * to the watch budget or a permission), both files are read every
 * `pollMs` instead (one stderr line).
 *
 * @param state What is in force at start-up.
 * @param options Where overlays and problem lines go.
 * @returns The running watch, or null.
 *
 * Requires `--allow-read` on the configuration folder and its parents and
 * the inotify service's (`--allow-all`: the trusted part only).
 */
export function watchOwnerFiles(
  state: LiveConfigState,
  options: WatchOwnerFilesOptions,
): OwnerFilesWatch | null {
  const folder = dirname(state.location.path);
  const names = new Set([basename(state.location.path), basename(state.location.overridesPath)]);
  const start = nearestExisting(folder);
  if (!isFolder(start)) return null;
  // What this watch's own port may ask for: the folder and any ancestor (it asks only for the
  // folder or its nearest existing ancestor, from the owner's configuration location: no client
  // input names it), so the folder or a parent removed or swapped is waited for from wherever
  // the nearest existing ancestor is then (r18-4). Watched flat: nothing below it is listed.
  const confinedTo = "/";
  let watcher: WatchHandle | null = null;
  /** The watch held now, what it was asked for and that folder's device:inode then; else null. */
  let armed: { handle: WatchHandle; target: string; identity: string } | null = null;
  /** Reasons already said on stderr (each said once). */
  const saidNotLive = new Set<string>();
  const pollMs = options.pollMs ?? OWNER_POLL_MS;
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  /**
   * inotify cannot watch the folder: both files are read every `pollMs` from
   * now on (review r18, r18-3), and each reason is said once.
   */
  const sayNotLive = (why: string) => {
    if (isClosed) return;
    pollTimer ??= setInterval(rereadBoth, pollMs);
    if (saidNotLive.has(why)) return;
    saidNotLive.add(why);
    options.log(
      `skillgate: edits to ${folder} are not applied live (${why}); both files are read ` +
        `again every ${pollMs / 1000} s instead`,
    );
  };
  // The folder is watched through inotify (nothing opened per event: a FIFO holds no thread),
  // in a service and kernel queue of its own (a flood in a root cannot overflow it: hA-7).
  const backend: WatchBackend = startWatchIsolate({
    starter: options.service === undefined
      ? directStarter([confinedTo])
      : serviceStarter(options.service, [confinedTo]),
    onGivenUp: (_sinceMs, why) => sayNotLive(why),
    // The folder (or the parent waited on) is not watched (the watch budget, EACCES): said once
    // per reason; both files are read again (an edit may have come before the loss).
    onLost: (lost) => {
      // The folder asked for went between its check and its watch (a swap midway: with this
      // port's confinement, NotCapable says only that its path did not resolve; Gone, that its
      // walk did not find it there, s15 hX): the pump asks again for whatever is there now (r18-4).
      if (
        isOpening && lost.every((folder) => folder.why === NOT_CAPABLE || folder.why === GONE_WHY)
      ) {
        isVanishedAtOpen = true;
        return;
      }
      // The folder watched was not there at a later walk of it (an overflow's): its watch holds
      // nothing; the pump asks again for what is there now, both files read (s15 hX).
      const gone = lost.filter((folder) => folder.why === GONE_WHY);
      if (gone.length > 0) armed?.handle.close();
      for (const folder of lost) if (folder.why !== GONE_WHY) sayNotLive(folder.why);
      rereadBoth();
    },
  });
  // The view's switches at start are only those still off (serve's start-up keeps them so too).
  let current = { ...state, setByView: keptSetByView(state.setByView ?? {}, state.overrides) };
  let lastPosted = JSON.stringify({
    overlay: overlayOf({
      overrides: state.overrides,
      setByView: state.setByView ?? {},
      caps: state.caps,
      problems: [],
      ownerDetails: [],
    }),
    caps: state.caps,
  });
  let reported = new Set<string>();
  let lastProblems: readonly Problem[] = [];
  let running: Promise<unknown> = Promise.resolve();
  let isClosed = false;
  /** Set while the pump waits for a watch's answer, and when that answer found no folder. */
  let isOpening = false;
  let isVanishedAtOpen = false;
  /** Reads both files, reviews, posts what changed; returns the paths it could not accept. */
  const review = async (): Promise<readonly string[]> => {
    // A file that cannot be read (not a regular file, too large, not UTF-8)
    // is a config-invalid problem for that file; the other is still reviewed,
    // and the next valid edit is applied.
    const configText = await readOrError(state.location.path);
    const overridesText = await readOrError(state.location.overridesPath);
    const outcome = reviewOwnerFiles(
      current,
      configText,
      overridesText,
      // Before a first read was accepted, a caller that refuses requests says so (not "kept").
      isFirstReadDone || options.onUnread === undefined,
    );
    if (!isClosed && typeof overridesText === "string") {
      await dropStaleSetByView(state.location.overridesPath, overridesText, outcome.setByView)
        .catch(() => false);
    }
    current = {
      ...current,
      overrides: outcome.overrides,
      caps: outcome.caps,
      setByView: outcome.setByView,
    };
    lastProblems = outcome.problems;
    const unread = [state.location.path, state.location.overridesPath].filter((path) =>
      outcome.problems.some((found) =>
        found.reason === "config-invalid" && found.path === basename(path)
      )
    );
    const update = { overlay: overlayOf(outcome), caps: outcome.caps };
    const text = JSON.stringify(update);
    if (text === lastPosted || isClosed) return unread;
    lastPosted = text;
    // The owner's terminal gets the whole path and detail; clients only the file's name.
    const lines = new Set(
      outcome.problems.map((found, i) => problemLine(found, folder, outcome.ownerDetails[i])),
    );
    for (const line of lines) if (!reported.has(line)) options.log(line);
    reported = lines;
    options.onChange(update);
    return unread;
  };
  /** Set once both files were read and accepted (`onFirstRead` called). */
  let isFirstReadDone = false;
  /** A review's outcome for the first read: `onFirstRead` once accepted, `onUnread` before. */
  const settleFirstRead = (unread: readonly string[]) => {
    if (isFirstReadDone || isClosed) return;
    if (unread.length > 0) return options.onUnread?.(unread);
    isFirstReadDone = true;
    options.onFirstRead?.();
  };
  // Both files at once (review r17, hB-1): an edit made before this open is in force before
  // anything waiting on `onFirstRead` goes on; the read once the watch is live (below) still
  // catches an edit made in between.
  const queueReview = () =>
    running = running.then(review).then(settleFirstRead, (error: unknown) => {
      options.log(`skillgate: could not read the configuration again: ${String(error)}`);
      // Neither file is known to be read: fails closed (session 13, hA).
      settleFirstRead([state.location.path, state.location.overridesPath]);
    }).catch(() => {}); // (a callback's throw must not stop later reviews)
  void queueReview();
  const debouncer = createPathDebouncer(queueReview, { quietMs: options.quietMs ?? 200 });
  /** Reads both files again after the quiet period (events may have been lost). */
  const rereadBoth = () => {
    if (!isClosed) debouncer.add([state.location.path]);
  };
  const pump = (async () => {
    let target = start;
    let vanishedInARow = 0;
    while (!isClosed) {
      let opened: WatchHandle;
      isOpening = true;
      isVanishedAtOpen = false;
      // Which folder the watch is asked for (device and inode), checked again at its answer.
      const armedAt = identityOf(target);
      try {
        opened = await backend.openOne([target], false);
      } catch (error) {
        // Stopped, or nothing can watch here (said by `onGivenUp`): the files are polled.
        if (isClosed) return;
        if (saidNotLive.size === 0) sayNotLive(error instanceof Error ? error.message : "stopped");
        pollTimer ??= setInterval(rereadBoth, pollMs);
        return;
      } finally {
        isOpening = false;
      }
      if (isClosed) {
        opened.close();
        return;
      }
      // The service answers a folder that went (or was swapped) between its own checks and its
      // watch with no watch and no loss (as it answers a listed file: no loss to say there), and
      // a watch that holds nothing is deaf for good: no event ever ends it (s14 hW). So an answer
      // for a folder no longer the one asked for (gone, or another inode there now) is asked for
      // again from what is there now. The same folder there before the ask and after the answer
      // was the one the service found at that path and watched (unless moved away and back in
      // between: those few ms).
      if (isVanishedAtOpen || armedAt === null || identityOf(target) !== armedAt) {
        opened.close();
        target = nearestExisting(folder);
        // Asked again for what is there now; a folder swapped without end is polled instead.
        if (++vanishedInARow <= MAX_VANISHED_RETRIES) continue;
        sayNotLive(NOT_CAPABLE);
        return;
      }
      vanishedInARow = 0;
      watcher = opened;
      armed = { handle: opened, target, identity: armedAt };
      if (target === folder) {
        // Both files are read once the watch is live: an edit made before (while the watch
        // started, or a stuck one was replaced) is applied too; an unchanged outcome posts nothing.
        debouncer.add([state.location.path]);
        for await (const event of opened) {
          if (event.kind === "access") continue;
          // The folder itself went (removed, or moved away by a swap): its watch went with its
          // inode. Waited for again from where it is now, both files read then (r18-4).
          if (isSelfGone(event, target)) break;
          // Events were lost (the queue overflowed): an edit among them is read now (hA-7).
          if (event.flag === "rescan") rereadBoth();
          else if (event.paths.some((path) => names.has(basename(path)))) {
            debouncer.add(event.paths);
          }
        }
        // Ended: closed (the loop ends), stopped, the folder went, or another is there now (the
        // identity check below): watched again above.
        armed = null;
        opened.close();
        // What the files hold now (gone with the folder: a widening, refused as ever) is read.
        rereadBoth();
        target = nearestExisting(folder);
        continue;
      }
      // Waiting for the folder: any change in the parent may be it (or a folder on the way).
      let next = nearestExisting(folder);
      if (next === target) {
        for await (const event of opened) {
          if (event.kind === "access") continue;
          next = nearestExisting(folder);
          // The folder waited on went (a swap may have put another in its place): watched again.
          if (next !== target || isSelfGone(event, target)) break;
        }
      }
      armed = null;
      opened.close();
      target = nearestExisting(folder);
    }
  })().catch(() => {});
  // The last resort (s14 hW): a change no event reports leaves the watch on a folder that is not
  // the owner's any more, for good: a link on the way re-pointed (a dotfile manager's `ln -sfn`:
  // the link lives in a folder not watched; the old target is neither moved nor removed). Every
  // `pollMs` the folder (or the ancestor waited on) is checked: another one there (its
  // device:inode), or a nearer one, ends the watch; the pump asks again and reads both files. A
  // few stats; nothing is read while it holds.
  const recheckTimer = setInterval(() => {
    if (armed === null || isClosed) return;
    const now = nearestExisting(folder);
    if (now !== armed.target || identityOf(now) !== armed.identity) armed.handle.close();
  }, pollMs);
  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    clearInterval(pollTimer);
    clearInterval(recheckTimer);
    debouncer.close();
    watcher?.close();
    await backend.close();
    await pump;
    await running.catch(() => {});
  };
  const adopt = (next: OverridesInForce) => {
    current = { ...current, overrides: next.overrides, setByView: next.setByView };
    const update = {
      overlay: overlayOf({
        overrides: next.overrides,
        setByView: next.setByView,
        caps: current.caps,
        problems: lastProblems,
        ownerDetails: [],
      }),
      caps: current.caps,
    };
    lastPosted = JSON.stringify(update);
    if (!isClosed) options.onChange(update);
  };
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const result = running.catch(() => {}).then(task);
    running = result.catch(() => {});
    return result;
  };
  return {
    close,
    inForce: () => ({ overrides: current.overrides, setByView: current.setByView ?? {} }),
    adopt,
    exclusive,
    readWanted() {
      if (isClosed) return;
      if (isFirstReadDone) options.onFirstRead?.();
      else void queueReview();
    },
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Whether `event` says the watched folder `target` itself went: the service
 * reports a `remove` at a watched folder's own path only when its inode was
 * removed or moved away (`IN_DELETE_SELF`, `IN_MOVE_SELF`, `IN_IGNORED`),
 * and the watch went with it.
 */
function isSelfGone(event: Deno.FsEvent, target: string): boolean {
  return event.kind === "remove" && event.paths.includes(target);
}

/**
 * The folder at `path` now, as `device:inode` (following links, as the
 * service resolves the path it watches), or null when no folder is there.
 */
function identityOf(path: string): string | null {
  try {
    const found = Deno.statSync(path);
    return found.isDirectory ? `${found.dev}:${found.ino}` : null;
  } catch {
    return null;
  }
}

/** Whether `path` is a folder now. */
function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** `folder` itself when it exists as a folder, else its nearest parent that does. */
function nearestExisting(folder: string): string {
  for (let at = folder;; at = dirname(at)) {
    try {
      if (Deno.statSync(at).isDirectory) return at;
    } catch { /* not there yet: try its parent */ }
    if (dirname(at) === at) return at;
  }
}

/**
 * One stderr line for a problem about the owner's files.
 *
 * @param problem A `restart-needed` or `config-invalid` problem (its path is the file's name).
 * @param folder The configuration folder, prefixed to the name.
 * @param ownerDetail The owner's fuller detail. @default the problem's detail
 * @returns `skillgate: FOLDER/FILE[:LINE:COLUMN]: reason: detail`.
 */
export function problemLine(problem: Problem, folder: string, ownerDetail?: string): string {
  const file = `${folder}/${problem.path}`;
  const place = problem.line === undefined
    ? file
    : `${file}:${problem.line}:${problem.column ?? 1}`;
  return `skillgate: ${place}: ${problem.reason}: ${ownerDetail ?? problem.detail}`;
}

/** The file's text, null when absent, or the {@linkcode ConfigFileError} that refused it. */
async function readOrError(path: string): Promise<string | null | ConfigFileError> {
  try {
    return await readOwnerFile(path);
  } catch (error) {
    if (error instanceof ConfigFileError) return error;
    throw error;
  }
}
