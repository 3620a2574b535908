/**
 * The serving worker's side of live refresh's watch: every watch is the
 * trusted part's inotify (`inotify/watch_service.ts`), asked for over a port
 * the worker hands the trusted part (`trustedPartStarter`); a main thread
 * (tests) runs a service of its own (`directStarter`). Nothing here waits
 * on the watch synchronously: opens are answered by message, events arrive
 * in batches (`watch_messages.ts`, shapes checked). Where inotify cannot be
 * used (not Linux), the starter says so at once and live refresh reads the
 * roots periodically instead (`onGivenUp`).
 *
 * @module
 */

import {
  startWatchService,
  type WatchService,
  type WatchServiceOptions,
} from "./inotify/watch_service.ts";
import type { LostFolder } from "./watch_plan.ts";
import type { OpenedWatch, WatchBackend, WatchHandle } from "./watch_open.ts";
import {
  carryError,
  type FromWatchIsolate,
  parseFromWatchIsolate,
  revive,
  type ToWatchIsolate,
} from "./watch_messages.ts";

/** Thrown into requests once the watch stopped (closed, or nothing can watch here). */
export class WatchIsolateStopped extends Error {
  override name = "WatchIsolateStopped";
}

/**
 * Connects a port to a watch: each start ends the previous one, then answers
 * on `port`; `onEnded` is called if nothing can watch.
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
 * Asks the trusted part to answer the watch on a port (`watch-isolate`
 * messages; it answers `watch-isolate-ended` when nothing can watch).
 *
 * @param parent The worker's `self`.
 * @returns The starter. `stop()` leaves the port to the trusted part, which
 *   detaches it with the worker.
 */
export function trustedPartStarter(parent: TrustedPeer): WatchIsolateStarter {
  let onEnded: ((reason: string) => void) | null = null;
  parent.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; reason?: unknown } | null;
    if (data?.type !== "watch-isolate-ended") return;
    onEnded?.(typeof data.reason === "string" ? data.reason : "the watch ended");
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
 * @param serviceOptions The service's bounds (tests lower the watch budget). @default none
 * @returns The starter. Where inotify cannot be used (not Linux), `onEnded`
 *   is called at once: live refresh then reads the roots periodically.
 *
 * Requires `--allow-all` (`/proc`, `--allow-ffi`).
 */
export function directStarter(
  readPaths: readonly string[],
  serviceOptions: WatchServiceOptions = {},
): WatchIsolateStarter {
  let service: WatchService | null = null;
  return attachingStarter(readPaths, () => (service ??= startWatchService(serviceOptions)), () => {
    const closing = service?.close();
    service = null;
    return closing;
  });
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
  return attachingStarter(readPaths, () => service, () => {});
}

/**
 * A starter that attaches each port to `serviceNow()`'s service (detaching
 * the previous port first), or ends it at once when that is null; `stop()`
 * detaches, then runs `afterStop`.
 */
function attachingStarter(
  readPaths: readonly string[],
  serviceNow: () => WatchService | null,
  afterStop: () => void | Promise<void>,
): WatchIsolateStarter {
  let detach: (() => void) | null = null;
  return {
    start(port, onEnded) {
      detach?.();
      detach = null;
      const service = serviceNow();
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
      return afterStop();
    },
  };
}

/**
 * Why nothing watches where inotify cannot be used: not Linux, or
 * `inotify_init1` refused (this user's instances spent, review r18 r18-3).
 */
export const NO_INOTIFY =
  "inotify cannot be used here (Linux only; or this user's inotify instances are spent: " +
  "fs.inotify.max_user_instances)";

/** Options of {@linkcode startWatchIsolate}. */
export interface WatchIsolateOptions {
  /** Where the watch is answered (the trusted part's, or this thread's). */
  readonly starter: WatchIsolateStarter;
  /**
   * Nothing can watch (no inotify here): every watcher has ended. `sinceMs`
   * is when the watch was asked for (`Date.now()` ms); `why` says why.
   */
  readonly onGivenUp: (sinceMs: number, why: string) => void;
  /**
   * Folders an open watch could not hold: those `openOne`'s answer names and
   * those lost since any answer (the watch budget, EACCES). @default ignored
   */
  readonly onLost?: (lost: readonly LostFolder[]) => void;
}

/** A watch answered over the port, read here. */
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

  /** Ends the iteration (the watch stopped). */
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
 * Connects to the watch and returns the backend live refresh opens its
 * watches through.
 *
 * @param options The starter and the callbacks.
 * @returns The backend; `close()` ends the watch (never blocks; resolves once
 *   a watch of this thread closed its descriptors).
 */
export function startWatchIsolate(options: WatchIsolateOptions): WatchBackend {
  let isolate: MessagePort | null = null;
  let isStopped = false;
  let nextId = 1;
  const requests = new Map<
    number,
    { resolve: (message: FromWatchIsolate) => void; reject: (error: Error) => void }
  >();
  let remotes = new Map<number, RemoteWatcher>();
  /** When the watch was asked for (`Date.now()` ms). */
  let startedAtMs = Date.now();

  /** Asks for the watch. */
  function start(): void {
    const channel = new MessageChannel();
    const port = channel.port1;
    isolate = port;
    startedAtMs = Date.now();
    port.onmessage = (event: MessageEvent) => {
      if (isolate !== port) return;
      const message = parseFromWatchIsolate(event.data);
      if (message !== null) receive(message);
    };
    options.starter.start(channel.port2, (reason) => {
      if (isolate !== port || isStopped) return;
      // Nothing can watch: watching is given up.
      const sinceMs = startedAtMs;
      void giveUp();
      options.onGivenUp(sinceMs, reason);
    });
  }

  function receive(message: FromWatchIsolate): void {
    switch (message.type) {
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

  /** Ends the current port and everything read from it. */
  function stopCurrent(): void {
    isolate?.close();
    isolate = null;
    const stopped = new WatchIsolateStopped("the watch was stopped");
    for (const request of requests.values()) request.reject(stopped);
    requests.clear();
    for (const remote of remotes.values()) remote.end();
    remotes = new Map();
  }

  function giveUp(): Promise<void> {
    isStopped = true;
    stopCurrent();
    return Promise.resolve(options.starter.stop());
  }

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
      const [remote] = adoptRemote(answer.watches);
      // What the watch could not hold at its answer goes where a later loss goes (review r17,
      // hA-8: the owner files' watch was silently deaf).
      if (answer.lost.length > 0) options.onLost?.(answer.lost);
      return remote!;
    },
    close: () => isStopped ? Promise.resolve() : giveUp(),
  };
}

/**
 * Whether `error` says the watch is gone (closed, or given up).
 *
 * @param error What a backend call threw.
 * @returns True for {@linkcode WatchIsolateStopped}.
 */
export function isWatchStopped(error: unknown): boolean {
  return error instanceof WatchIsolateStopped;
}
