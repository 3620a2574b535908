/**
 * The accept loop and the table of open connections. skillgate accepts TCP
 * connections itself (`Deno.Listener.accept()`) and hands each to node:http
 * as a {@linkcode ConnSocket}, because this loop must survive what node:http's
 * own listener does not: under Deno 2.9.6 its accept loop stops for good,
 * silently, after one `EMFILE` (measured; see README "HTTP connections").
 *
 * Bounded: at most `maxConnections` open at once. At the cap, a new
 * connection takes the place of an idle one (no request in progress): first
 * the oldest connection that never completed a request, then the one kept
 * alive longest between requests, so a flood of half-sent headers cannot
 * push out a client that is already being served. With no idle connection,
 * a standby stream gives way (an SSE stream kept open only for later
 * notifications, see `standby.ts`; its client's least recently active one
 * first: the client opens it again and resumes), then the connection whose
 * request body has been arriving longest (no work has started on it), so
 * neither idle streams nor unfinished bodies can keep a new client out.
 * When every connection has a request in progress whose body has arrived
 * and that is not a standby stream, the new one is closed at once. Each
 * accept is followed by one turn of the event loop, so a newcomer's headers
 * are read before the flood accepted after it can make it the oldest. A
 * failed accept (`EMFILE`, `ENFILE`, ...) is logged, closes the longest-idle
 * connections to free descriptors, and is retried after a backoff that
 * doubles from `acceptBackoffMinMs` to `acceptBackoffMaxMs`.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { ConnSocket, WRITE_STALLED_EVENT } from "./conn_socket.ts";

/** Limits of {@linkcode acceptConnections}; defaults are in `src/caps.ts`. */
export interface ConnectionLimits {
  /** Connections open at once, at least 1. */
  readonly maxConnections: number;
  /** First wait after a failed accept, in ms. */
  readonly acceptBackoffMinMs: number;
  /** Longest wait between retries of a failing accept, in ms. */
  readonly acceptBackoffMaxMs: number;
}

/** Idle connections closed per failed accept, to give descriptors back. */
export const CONNECTIONS_FREED_PER_ACCEPT_ERROR = 16;
/** At most one log line per this many ms for repeated accept errors or refusals. */
export const CONNECTION_LOG_INTERVAL_MS = 10_000;

/** Counters since the loop started. */
export interface ConnectionStats {
  /** Open now. */
  readonly open: number;
  readonly accepted: number;
  /**
   * Closed at accept because every open connection had a request in
   * progress, its body arrived, that is not a standby stream.
   */
  readonly refused: number;
  /**
   * Connections closed to make room for a new one (idle, a standby stream,
   * or mid-body) or to free descriptors.
   */
  readonly evicted: number;
  /** Of `evicted`, standby streams closed for a new connection. */
  readonly standbyEvicted: number;
  /** Connections closed because an answer's bytes made no progress (the client stopped reading). */
  readonly writeStalls: number;
  readonly acceptErrors: number;
}

/** The running loop and its table. */
export interface Connections {
  /**
   * A request started on `socket` (node:http's `request` event).
   *
   * @param isBodyComplete Whether its body has arrived whole (node's
   *   `req.complete`); at the cap, the connection whose unfinished body has
   *   been arriving longest gives way to a new connection. @default always true
   */
  requestStarted(socket: ConnSocket, isBodyComplete?: () => boolean): void;
  /**
   * The request in progress on `socket` is now a standby stream (its answer
   * stays open only for later notifications): at the cap it gives way to a
   * new connection, the least recently active first.
   *
   * @param lastActiveMs When its client last did something, in ms since the epoch.
   */
  requestIsStandby(socket: ConnSocket, lastActiveMs: () => number): void;
  /** A request on `socket` ended (its response closed). */
  requestEnded(socket: ConnSocket): void;
  /** Stops accepting (closes the listener). Idempotent. */
  stopAccepting(): void;
  /**
   * Destroys every connection with no request in progress.
   *
   * @returns How many were closed.
   */
  closeIdle(): number;
  /** Destroys every open connection. @returns How many were closed. */
  closeAll(): number;
  /** The open connections (for shutdown decisions). */
  sockets(): IterableIterator<ConnSocket>;
  stats(): ConnectionStats;
  /** Resolves when the accept loop has ended (after `stopAccepting`). */
  readonly stopped: Promise<void>;
}

/**
 * Accepts connections from `listener` until {@linkcode Connections.stopAccepting},
 * wrapping each in a {@linkcode ConnSocket} and passing it to `onSocket`.
 *
 * @param listener A bound TCP listener; the loop owns it (closes it when stopping).
 * @param limits The cap and the accept backoff.
 * @param options `onSocket`: receives each accepted socket (serve.ts emits
 *   node:http's `connection` with it); `log`: one line for the owner (stderr).
 * @returns The running loop.
 *
 * Requires `--allow-net` for the listener's address (already bound).
 */
export function acceptConnections(
  listener: Deno.Listener,
  limits: ConnectionLimits,
  options: { onSocket: (socket: ConnSocket) => void; log: (line: string) => void },
): Connections {
  /** Requests in progress per open socket. */
  const open = new Map<ConnSocket, number>();
  /** Sockets that never completed a request, oldest first (a Map keeps insertion order). */
  const fresh = new Map<ConnSocket, true>();
  /** Sockets between requests (kept alive), longest idle first. */
  const kept = new Map<ConnSocket, true>();
  /** Sockets with a request in progress and whether its body is complete, oldest request first. */
  const busy = new Map<ConnSocket, () => boolean>();
  /** Sockets whose request in progress is a standby stream, and its client's last activity. */
  const standby = new Map<ConnSocket, () => number>();
  let isStopping = false;
  let standbyEvicted = 0;
  let writeStalls = 0;
  let accepted = 0;
  let refused = 0;
  let evicted = 0;
  let acceptErrors = 0;
  const logLimited = rateLimitedLog(options.log);

  const evictOldestIdle = (count: number) => {
    let closed = 0;
    for (const table of [fresh, kept]) {
      for (const socket of table.keys()) {
        if (closed >= count) break;
        table.delete(socket);
        open.delete(socket); // its descriptor closes now; its `close` event comes later
        socket.destroy();
        closed++;
      }
    }
    evicted += closed;
    return closed;
  };
  /**
   * At the cap with no idle connection: closes the connection whose request
   * body has been arriving longest (no work has started on it; its client
   * sees the connection close), so unfinished bodies on every connection
   * cannot keep a new client out. A request whose body is complete is work
   * in progress and is never cut.
   *
   * @returns Whether one was closed.
   */
  const evictOldestUnfinishedBody = () => {
    for (const [socket, isBodyComplete] of busy) {
      if (isBodyComplete()) continue;
      busy.delete(socket);
      open.delete(socket);
      socket.destroy();
      evicted++;
      return true;
    }
    return false;
  };

  /**
   * At the cap with no idle connection: closes the standby stream whose
   * client was least recently active (its client sees the stream end and
   * opens it again, resuming with `Last-Event-ID`), so idle notification
   * streams on every connection cannot keep a new client out.
   *
   * @returns Whether one was closed.
   */
  const evictLeastActiveStandby = () => {
    let chosen: ConnSocket | undefined;
    let chosenMs = Number.POSITIVE_INFINITY;
    for (const [socket, lastActiveMs] of standby) {
      const atMs = lastActiveMs();
      if (chosen === undefined || atMs < chosenMs) {
        chosen = socket;
        chosenMs = atMs;
      }
    }
    if (chosen === undefined) return false;
    standby.delete(chosen);
    open.delete(chosen);
    chosen.destroy();
    evicted++;
    standbyEvicted++;
    return true;
  };

  const track = (socket: ConnSocket) => {
    open.set(socket, 0);
    fresh.set(socket, true);
    socket.once("close", () => {
      open.delete(socket);
      fresh.delete(socket);
      kept.delete(socket);
      busy.delete(socket);
      standby.delete(socket);
    });
    // A reset or failed read destroys the socket with an error; node:http listens for it
    // while it owns the socket, this one stays so an error outside that time (before
    // `onSocket`, after node:http let go) is never an uncaught exception ending the worker.
    socket.on("error", ignoreSocketError);
    socket.once(WRITE_STALLED_EVENT, () => {
      writeStalls++;
      logLimited(
        "stall",
        "HTTP answer cut: its client stopped reading it (no byte taken for the write stall " +
          "timeout), so its connection is closed and what it held (memory, request slot) released",
      );
    });
  };

  const loop = async () => {
    let backoffMs = limits.acceptBackoffMinMs;
    while (!isStopping) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (isStopping) break;
        acceptErrors++;
        const freed = evictOldestIdle(CONNECTIONS_FREED_PER_ACCEPT_ERROR);
        logLimited(
          "accept",
          `HTTP accept failed (${describe(error)}); ${open.size} connections open, ` +
            `${freed} idle ones closed to free descriptors; retrying in ${backoffMs} ms`,
        );
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, limits.acceptBackoffMaxMs);
        continue;
      }
      backoffMs = limits.acceptBackoffMinMs;
      // Deno resolves an accept at once while connections wait in the backlog, so a flood
      // would be accepted (and, at the cap, evicted) without one read of any of them ever
      // being handed over: measured, 1,000 accepts in 90 ms and not one read. One event-loop
      // turn per accept lets every accepted connection's bytes in (a newcomer's headers
      // complete, so it leaves `fresh`) before the flood behind it can push it out.
      await yieldToEventLoop();
      if (
        open.size >= limits.maxConnections && evictOldestIdle(1) === 0 &&
        !evictLeastActiveStandby() && !evictOldestUnfinishedBody()
      ) {
        refused++;
        try {
          conn.close();
        } catch { /* already closed */ }
        logLimited(
          "cap",
          `HTTP connection limit reached (${limits.maxConnections} open, each with a request ` +
            "in progress whose body has arrived); new connections are closed until one ends",
        );
        continue;
      }
      accepted++;
      const socket = new ConnSocket(conn);
      track(socket);
      try {
        options.onSocket(socket);
      } catch (error) {
        options.log(`HTTP connection setup failed: ${describe(error)}`);
        socket.destroy();
      }
    }
  };

  const stopped = loop();
  return {
    requestStarted: (socket, isBodyComplete = () => true) => {
      const count = open.get(socket);
      if (count === undefined) return;
      open.set(socket, count + 1);
      fresh.delete(socket);
      kept.delete(socket);
      busy.delete(socket);
      standby.delete(socket);
      busy.set(socket, isBodyComplete);
    },
    requestIsStandby: (socket, lastActiveMs) => {
      // Only a request still in progress (its answer open) can be a standby stream.
      if (!busy.has(socket)) return;
      busy.delete(socket);
      standby.set(socket, lastActiveMs);
    },
    requestEnded: (socket) => {
      const count = open.get(socket);
      if (count === undefined) return;
      const left = Math.max(0, count - 1);
      open.set(socket, left);
      if (left === 0) {
        busy.delete(socket);
        standby.delete(socket);
        kept.delete(socket);
        kept.set(socket, true);
      }
    },
    stopAccepting: () => {
      if (isStopping) return;
      isStopping = true;
      try {
        listener.close();
      } catch { /* already closed */ }
    },
    closeIdle: () => {
      const sockets = [...fresh.keys(), ...kept.keys()];
      for (const socket of sockets) socket.destroy();
      return sockets.length;
    },
    closeAll: () => {
      const sockets = [...open.keys()];
      for (const socket of sockets) socket.destroy();
      return sockets.length;
    },
    sockets: () => open.keys(),
    stats: () => ({
      open: open.size,
      accepted,
      refused,
      evicted,
      standbyEvicted,
      writeStalls,
      acceptErrors,
    }),
    stopped,
  };
}

/** Logs the first event of each kind at once, then at most one summary per interval. */
function rateLimitedLog(log: (line: string) => void): (kind: string, line: string) => void {
  const last = new Map<string, { atMs: number; suppressed: number }>();
  return (kind, line) => {
    const now = Date.now();
    const entry = last.get(kind);
    if (entry !== undefined && now - entry.atMs < CONNECTION_LOG_INTERVAL_MS) {
      entry.suppressed++;
      return;
    }
    const suppressed = entry?.suppressed ?? 0;
    last.set(kind, { atMs: now, suppressed: 0 });
    log(suppressed > 0 ? `${line} (${suppressed} more like it since the last line)` : line);
  };
}

/** The socket's own `close` (tracked above) is what the table acts on. */
function ignoreSocketError(): void {}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after the event loop's next turn (its poll of ready reads). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
