/**
 * The watch isolate's entry: every `Deno.watchFs` of live refresh runs here,
 * started for the serving worker by the trusted part
 * (`src/sandbox/watch_isolate_host.ts`) with read permission of the roots and
 * nothing else; it talks to the serving worker (`watch_isolate.ts`) over the
 * port the trusted part hands it. Deno 2.9.6 keeps one watcher thread per
 * isolate, and that thread opens each event's path while it holds the lock
 * every `Deno.watchFs` of the isolate takes: a FIFO in a root holds it in
 * that open for good. Here only this isolate stops (the serving worker sees
 * its probes go unanswered and starts a fresh one); the serving thread never
 * calls `Deno.watchFs`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { openWatchers } from "./watch_open.ts";
import {
  type CarriedEvent,
  carryError,
  type FromWatchIsolate,
  revive,
  type ToWatchIsolate,
} from "./watch_messages.ts";
import type { WatchOpener } from "./watch_plan.ts";

const watchers = new Map<number, Deno.FsWatcher>();
let nextWatch = 1;
let queued: CarriedEvent[] = [];
let isFlushQueued = false;
let lastHeartbeatMs = Number.NEGATIVE_INFINITY;

/** Heartbeats while opening, at most one per this many ms (a long plan is not a stuck one). */
const HEARTBEAT_MS = 1_000;

/** The serving worker's end, once handed over. */
let peer: MessagePort | null = null;

function post(message: FromWatchIsolate): void {
  peer?.postMessage(message);
}

/** Deno.watchFs, telling the serving worker before each open that this isolate still runs. */
const open: WatchOpener = (paths, options) => {
  const nowMs = performance.now();
  if (nowMs - lastHeartbeatMs >= HEARTBEAT_MS) {
    lastHeartbeatMs = nowMs;
    post({ type: "alive", id: -1 });
  }
  return Deno.watchFs(paths, options);
};

/** Reads one watcher's events into the next batch until it closes. */
async function pump(watch: number, watcher: Deno.FsWatcher): Promise<void> {
  let error: string | null = null;
  try {
    for await (const event of watcher) {
      queued.push({
        watch,
        kind: event.kind,
        paths: event.paths,
        // Deno gives `flag: null` for most events; only a rescan is carried.
        ...(event.flag === "rescan" ? { flag: "rescan" as const } : {}),
      });
      if (!isFlushQueued) {
        isFlushQueued = true;
        // One message per turn of the loop: a burst goes as one batch.
        setTimeout(flush, 0);
      }
    }
  } catch (caught) {
    error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  }
  flush();
  if (watchers.delete(watch)) post({ type: "watch-ended", watch, error });
}

function flush(): void {
  isFlushQueued = false;
  if (queued.length === 0) return;
  const events = queued;
  queued = [];
  post({ type: "events", events });
}

function adopt(list: readonly Deno.FsWatcher[]): number[] {
  return list.map((watcher) => {
    const watch = nextWatch++;
    watchers.set(watch, watcher);
    void pump(watch, watcher);
    return watch;
  });
}

self.onmessage = (event: MessageEvent<{ type?: unknown; port?: unknown }>) => {
  // The trusted part hands over the serving worker's port once; nothing else comes this way.
  if (peer !== null || event.data?.type !== "watch-port") return;
  if (!(event.data.port instanceof MessagePort)) return;
  peer = event.data.port;
  peer.onmessage = (request: MessageEvent<ToWatchIsolate>) => handle(request.data);
};

function handle(message: ToWatchIsolate): void {
  switch (message?.type) {
    case "probe": {
      // Takes the lock Deno's watcher thread holds while it filters an event: a thread stuck in
      // a FIFO's open holds it for good, and this isolate never answers again.
      Deno.watchFs([], { recursive: false }).close();
      post({ type: "alive", id: message.id });
      return;
    }
    case "close": {
      for (const watch of message.watches) {
        const watcher = watchers.get(watch);
        watchers.delete(watch);
        watcher?.close();
      }
      return;
    }
    case "open-one": {
      try {
        const [watch] = adopt([open([...message.paths], { recursive: message.recursive })]);
        post({
          type: "opened",
          id: message.id,
          watches: [watch!],
          lost: [],
          flat: [],
          flatEntries: [],
          pathCount: message.paths.length,
        });
      } catch (error) {
        post({ type: "open-failed", id: message.id, error: carryError(error) });
      }
      return;
    }
    case "open-plan": {
      try {
        const known = message.knownError === null ? null : revive(message.knownError);
        const opened = openWatchers(message.paths, open, known);
        post({
          type: "opened",
          id: message.id,
          watches: adopt(opened.watchers),
          lost: opened.lost,
          flat: opened.flat,
          flatEntries: [...opened.flatEntries],
          pathCount: opened.pathCount,
        });
      } catch (error) {
        post({ type: "open-failed", id: message.id, error: carryError(error) });
      }
      return;
    }
  }
}
