/**
 * The serving worker's side of the watch isolate (`watch_entry.ts`): every
 * watcher of live refresh is opened there, so a FIFO that holds Deno's
 * watcher thread (and with it the lock every `Deno.watchFs` of that isolate
 * takes) stops only the isolate, never the thread that answers requests.
 * Nothing here waits on the isolate synchronously: opens are answered by
 * message, events arrive in batches.
 *
 * A stuck isolate is found without a clock in any test: every
 * {@linkcode PROBE_INTERVAL_MS} the isolate is asked to open and close a
 * watcher over no path (it takes the same lock the stuck thread holds) and
 * answer; while it opens watchers it also says it is alive before each
 * open. No word for {@linkcode STUCK_AFTER_MS}: a fresh isolate (a fresh
 * watcher thread and lock) is asked for, and the old one is terminated
 * (Deno 2.9.6's `Worker.terminate()` returns at once even while the
 * isolate's thread is blocked in an op; that thread and its watcher thread
 * are then leaked until the process exits, which `main.ts` does with
 * `Deno.exit`, measured). In the serving worker the trusted part starts and
 * ends the isolates (`src/sandbox/watch_isolate_host.ts`: a worker may load
 * no module it cannot read); a main thread (tests) starts them itself; live refresh then plans its watch again and rescans what changed.
 * Each replacement leaks a thread or two, so after
 * {@linkcode MAX_REPLACEMENTS} the backend gives up and live refresh reads
 * the roots periodically instead.
 *
 * @module
 */

import { startWatchService, type WatchService } from "./inotify/watch_service.ts";
import type { LostFolder } from "./watch_plan.ts";
import type { OpenedWatch, WatchBackend, WatchHandle } from "./watch_open.ts";
import {
  carryError,
  type FromWatchIsolate,
  parseFromWatchIsolate,
  revive,
  type ToWatchIsolate,
} from "./watch_messages.ts";

/** How often the isolate is probed, in ms. */
export const PROBE_INTERVAL_MS = 5_000;

/**
 * How long the isolate may stay silent while a probe waits before it counts
 * as stuck, in ms: far above a healthy answer (a message and one watcher
 * opened over no path, under 1 ms idle) on a loaded two-core machine, and
 * above the longest single open live refresh makes (200 paths a watcher).
 */
export const STUCK_AFTER_MS = 15_000;

/** Stuck isolates replaced at most in one session before watching is given up. */
export const MAX_REPLACEMENTS = 4;

/** Thrown into requests of an isolate that was found stuck (or stopped). */
export class WatchIsolateStopped extends Error {
  override name = "WatchIsolateStopped";
}

/**
 * Starts watch isolates: each start ends the previous isolate, then starts
 * one connected to `port`; `onEnded` is called if it cannot start or fails.
 */
export interface WatchIsolateStarter {
  start(port: MessagePort, onEnded: (reason: string) => void): void;
  /** Ends the running watch, if any (never blocks; resolves once its descriptors are closed). */
  stop(): void | Promise<void>;
}

/** The end of the trusted part the serving worker talks through (`self` there). */
export interface TrustedPeer {
  postMessage(message: unknown, transfer: Transferable[]): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/**
 * Starts watch isolates through the trusted part (`watch-isolate` messages;
 * it answers `watch-isolate-ended` when it cannot or will not).
 *
 * @param parent The worker's `self`.
 * @returns The starter. `stop()` leaves the isolate to the trusted part,
 *   which ends it with the worker.
 */
export function trustedPartStarter(parent: TrustedPeer): WatchIsolateStarter {
  let onEnded: ((reason: string) => void) | null = null;
  parent.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; reason?: unknown } | null;
    if (data?.type !== "watch-isolate-ended") return;
    onEnded?.(typeof data.reason === "string" ? data.reason : "the watch isolate ended");
  });
  return {
    start(port, ended) {
      onEnded = ended;
      parent.postMessage({ type: "watch-isolate", port }, [port]);
    },
    stop() {
      onEnded = null;
    },
  };
}

/**
 * Watches in this thread's own inotify service (`inotify/watch_service.ts`):
 * a main thread holding the rights (tests, benches). Each start detaches the
 * previous port; `stop()` closes the service.
 *
 * @param readPaths What a watch may be at or under (the roots, as configured and real).
 * @returns The starter. Where inotify cannot be used (not Linux), `onEnded`
 *   is called at once: live refresh then reads the roots periodically.
 *
 * Requires `--allow-all` (`/proc`, `--allow-ffi`).
 */
export function directStarter(readPaths: readonly string[]): WatchIsolateStarter {
  let service: WatchService | null = null;
  let detach: (() => void) | null = null;
  return {
    start(port, onEnded) {
      detach?.();
      detach = null;
      service ??= startWatchService();
      if (service === null) {
        port.close();
        queueMicrotask(() => onEnded(NO_INOTIFY));
        return;
      }
      detach = service.attach(port, readPaths);
    },
    stop() {
      detach?.();
      detach = null;
      const closing = service?.close();
      service = null;
      return closing;
    },
  };
}

/**
 * Watches through a running inotify service (the trusted part's one, shared
 * with the serving worker's watch): each start detaches the previous port;
 * `stop()` detaches, the service stays.
 *
 * @param service The service, or null where inotify cannot be used.
 * @param readPaths What a watch may be at or under.
 * @returns The starter.
 */
export function serviceStarter(
  service: WatchService | null,
  readPaths: readonly string[],
): WatchIsolateStarter {
  let detach: (() => void) | null = null;
  return {
    start(port, onEnded) {
      detach?.();
      detach = null;
      if (service === null) {
        port.close();
        queueMicrotask(() => onEnded(NO_INOTIFY));
        return;
      }
      detach = service.attach(port, readPaths);
    },
    stop() {
      detach?.();
      detach = null;
    },
  };
}

/** Why nothing watches where inotify cannot be used. */
export const NO_INOTIFY = "inotify is not available here (Linux only)";

/** Options of {@linkcode startWatchIsolate}. */
export interface WatchIsolateOptions {
  /** How isolates are started (the trusted part's, or this thread's). */
  readonly starter: WatchIsolateStarter;
  /**
   * A stuck isolate was replaced by a fresh one: every watcher it had has
   * ended. `sinceMs` is when it last answered (`Date.now()` ms): what changed
   * since may have been missed.
   */
  readonly onReplaced: (sinceMs: number) => void;
  /**
   * Watching was given up (replacements past the bound, or no isolate
   * starts): every watcher has ended. `why` says what happened.
   */
  readonly onGivenUp: (sinceMs: number, why: string) => void;
  /** Folders of an open watch lost since it was answered (the watch budget). @default ignored */
  readonly onLost?: (lost: readonly LostFolder[]) => void;
  /** @default PROBE_INTERVAL_MS */
  readonly probeIntervalMs?: number;
  /** @default STUCK_AFTER_MS */
  readonly stuckAfterMs?: number;
  /** @default MAX_REPLACEMENTS */
  readonly maxReplacements?: number;
}

/** A watcher living in the isolate, read here. */
class RemoteWatcher implements WatchHandle {
  #events: Deno.FsEvent[] = [];
  #wake: (() => void) | null = null;
  #isEnded = false;
  #error: Error | null = null;

  constructor(readonly watch: number, private readonly onClose: (watch: number) => void) {}

  push(event: Deno.FsEvent): void {
    if (this.#isEnded) return;
    this.#events.push(event);
    this.#wake?.();
  }

  /** Ends the iteration (the isolate ended the watcher, or is gone). */
  end(error: Error | null = null): void {
    if (this.#isEnded) return;
    this.#isEnded = true;
    this.#error = error;
    this.#wake?.();
  }

  close(): void {
    if (this.#isEnded) return;
    this.end();
    this.onClose(this.watch);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Deno.FsEvent> {
    for (;;) {
      const event = this.#events.shift();
      if (event !== undefined) {
        yield event;
        continue;
      }
      if (this.#isEnded) {
        if (this.#error !== null) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = null;
    }
  }
}

/**
 * Starts the watch isolate and returns the backend live refresh opens its
 * watchers through.
 *
 * @param options The read set, the callbacks, bounds (tests lower them).
 * @returns The backend; `close()` terminates the isolate (never blocks).
 *
 * Requires `--unstable-worker-options` in the process and `--allow-read` of
 * `readPaths` in the calling worker (the isolate's set is a subset).
 */
export function startWatchIsolate(options: WatchIsolateOptions): WatchBackend {
  const probeIntervalMs = options.probeIntervalMs ?? PROBE_INTERVAL_MS;
  const stuckAfterMs = options.stuckAfterMs ?? STUCK_AFTER_MS;
  const maxReplacements = options.maxReplacements ?? MAX_REPLACEMENTS;
  let isolate: MessagePort | null = null;
  let replacements = 0;
  let isStopped = false;
  let nextId = 1;
  const requests = new Map<
    number,
    { resolve: (message: FromWatchIsolate) => void; reject: (error: Error) => void }
  >();
  let remotes = new Map<number, RemoteWatcher>();
  /** When the oldest unanswered probe went out (`performance.now()` ms), or null. */
  let probeSentMs: number | null = null;
  /** When the isolate last said it was alive (`Date.now()` ms). */
  let aliveAtMs = Date.now();

  /** Asks for a fresh isolate (the previous one is ended by the starter). */
  function start(): void {
    const channel = new MessageChannel();
    const port = channel.port1;
    isolate = port;
    probeSentMs = null;
    aliveAtMs = Date.now();
    port.onmessage = (event: MessageEvent) => {
      if (isolate !== port) return;
      const message = parseFromWatchIsolate(event.data);
      if (message !== null) receive(message);
    };
    options.starter.start(channel.port2, (reason) => {
      if (isolate !== port || isStopped) return;
      // It cannot start, failed, or no more may start: watching is given up.
      const sinceMs = aliveAtMs;
      void giveUp();
      options.onGivenUp(sinceMs, reason);
    });
  }

  function receive(message: FromWatchIsolate): void {
    switch (message.type) {
      case "alive":
        probeSentMs = null;
        aliveAtMs = Date.now();
        return;
      case "events":
        for (const event of message.events) {
          remotes.get(event.watch)?.push({
            kind: event.kind,
            paths: [...event.paths],
            ...(event.flag === undefined ? {} : { flag: event.flag }),
          });
        }
        return;
      case "lost":
        if (remotes.has(message.watch)) options.onLost?.(message.lost);
        return;
      case "watch-ended": {
        const remote = remotes.get(message.watch);
        remotes.delete(message.watch);
        remote?.end(message.error === null ? null : new Error(message.error));
        return;
      }
      case "opened":
      case "open-failed": {
        const request = requests.get(message.id);
        requests.delete(message.id);
        request?.resolve(message);
        return;
      }
    }
  }

  /** Ends the current isolate and everything read from it. */
  function stopCurrent(): void {
    isolate?.close();
    isolate = null;
    const stopped = new WatchIsolateStopped("the watch isolate was stopped");
    for (const request of requests.values()) request.reject(stopped);
    requests.clear();
    for (const remote of remotes.values()) remote.end();
    remotes = new Map();
  }

  function replace(why: string): void {
    if (isStopped) return;
    const sinceMs = aliveAtMs;
    stopCurrent();
    replacements++;
    if (replacements > maxReplacements) {
      void giveUp();
      options.onGivenUp(sinceMs, `${why}, ${replacements} times`);
      return;
    }
    start();
    options.onReplaced(sinceMs);
  }

  function giveUp(): Promise<void> {
    isStopped = true;
    clearInterval(timer);
    stopCurrent();
    return Promise.resolve(options.starter.stop());
  }

  const timer = setInterval(() => {
    if (isolate === null) return;
    if (probeSentMs === null) {
      probeSentMs = performance.now();
      send({ type: "probe", id: 0 });
    } else if (performance.now() - probeSentMs >= stuckAfterMs) {
      replace(
        `it did not answer for ${Math.round(stuckAfterMs / 1000)} s (a FIFO in a root holds ` +
          "Deno's watcher thread)",
      );
    }
  }, probeIntervalMs);

  function send(message: ToWatchIsolate): void {
    isolate?.postMessage(message);
  }

  function request(message: (id: number) => ToWatchIsolate): Promise<FromWatchIsolate> {
    if (isolate === null) {
      return Promise.reject(new WatchIsolateStopped("live refresh no longer watches"));
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      requests.set(id, { resolve, reject });
      send(message(id));
    });
  }

  function adoptRemote(watches: readonly number[]): RemoteWatcher[] {
    return watches.map((watch) => {
      const remote = new RemoteWatcher(watch, (closed) => {
        remotes.delete(closed);
        send({ type: "close", watches: [closed] });
      });
      remotes.set(watch, remote);
      return remote;
    });
  }

  start();

  return {
    async openWatchers(paths, knownError = null): Promise<OpenedWatch> {
      const answer = await request((id) => ({
        type: "open-plan",
        id,
        paths: [...paths],
        knownError: knownError === null ? null : carryError(knownError),
      }));
      if (answer.type === "open-failed") throw revive(answer.error);
      if (answer.type !== "opened") throw new WatchIsolateStopped("unexpected answer");
      return {
        watchers: adoptRemote(answer.watches),
        lost: answer.lost,
        flat: answer.flat,
        flatEntries: new Map(answer.flatEntries),
        pathCount: answer.pathCount,
      };
    },
    async openOne(paths, recursive): Promise<WatchHandle> {
      const answer = await request((id) => ({
        type: "open-one",
        id,
        paths: [...paths],
        recursive,
      }));
      if (answer.type === "open-failed") throw revive(answer.error);
      if (answer.type !== "opened" || answer.watches.length !== 1) {
        throw new WatchIsolateStopped("unexpected answer");
      }
      return adoptRemote(answer.watches)[0]!;
    },
    close: () => isStopped ? Promise.resolve() : giveUp(),
  };
}

/**
 * Whether `error` says the watch isolate is gone (replaced or given up):
 * the caller's watch is planned again, or watching was given up.
 *
 * @param error What a backend call threw.
 * @returns True for {@linkcode WatchIsolateStopped}.
 */
export function isWatchStopped(error: unknown): boolean {
  return error instanceof WatchIsolateStopped;
}
