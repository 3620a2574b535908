/**
 * The live HTTP sessions of a stateful handler, keyed by `Mcp-Session-Id`:
 * one MCP server and one SDK transport each, kept in least-recently-used
 * order. Bounded without locking anyone out: a new session is admitted by
 * closing the least-recently-used session that has nothing in flight (one
 * that never asked anything after `initialize` first), taken from the client
 * unit that holds the most sessions (see `client_unit.ts`).
 *
 * @module
 */

import type { Server, WebStandardStreamableHTTPServerTransport } from "../../mcp/sdk.ts";
import type { InFlight } from "./in_flight.ts";

/** One session. Mutable fields are the handler's bookkeeping. */
export interface HttpSession {
  readonly id: string;
  /** The client unit that opened it (see `clientUnitOf`). */
  readonly unit: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The protocol revision its `initialize` negotiated (see `negotiatedVersion`). */
  readonly protocolVersion?: string;
  /** Requests in flight in this session (bounded per session). */
  readonly inFlight: InFlight;
  /** Request bodies of this session being read now. */
  bodyReads: number;
  /** Requests after `initialize` this session has made. */
  requests: number;
  /** Open response streams that are not request answers (the GET stream). */
  openStreams: number;
  /** When a request last started or ended, in ms since the epoch. */
  lastActiveMs: number;
}

/** Why a new session could not be admitted. */
export type AdmitRefusal = "unit-busy" | "all-busy";

/** The table of sessions. */
export interface SessionTable {
  get(id: string): HttpSession | undefined;
  size(): number;
  /** Sessions of one client unit. */
  sizeOf(unit: string): number;
  add(session: HttpSession): void;
  /** Marks a session most recently used. */
  touch(session: HttpSession): void;
  /** Forgets a session (its transport closed). Idempotent. */
  remove(id: string): void;
  /**
   * Makes room for one more session of `unit`: when the unit holds
   * `maxPerUnit` sessions, closes its own least-recently-used idle one; when
   * the table holds `maxSessions`, closes the least-recently-used idle one
   * of the unit holding the most (then of any unit). Idle: nothing in flight
   * and no body being read (sessions without an open stream go first).
   *
   * @returns Null when there is room now, else why not (every candidate busy).
   */
  makeRoom(unit: string, limits: { maxSessions: number; maxPerUnit: number }): Promise<
    AdmitRefusal | null
  >;
  /**
   * Closes sessions with nothing in flight, no open stream, and no activity
   * for `idleMs`.
   *
   * @returns How many were closed.
   */
  closeIdle(nowMs: number, idleMs: number): Promise<number>;
  /** Closes every session (their servers and SSE streams). */
  closeAll(): Promise<void>;
}

/**
 * Creates an empty table.
 *
 * @param onClosed Called with each session this table closes itself
 *   (eviction, idle sweep, closeAll), after it left the table.
 * @returns The table.
 */
export function createSessionTable(
  onClosed: (session: HttpSession) => void = () => {},
): SessionTable {
  /** Insertion order is use order: the first entry is the least recently used. */
  const sessions = new Map<string, HttpSession>();
  const perUnit = new Map<string, number>();
  const forget = (session: HttpSession) => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    const left = (perUnit.get(session.unit) ?? 1) - 1;
    if (left === 0) perUnit.delete(session.unit);
    else perUnit.set(session.unit, left);
  };
  const close = async (session: HttpSession) => {
    forget(session);
    onClosed(session);
    await session.server.close().catch(() => {});
  };
  const isIdle = (session: HttpSession) =>
    session.inFlight.count() === 0 && session.bodyReads === 0;
  /**
   * The idle session of `unit` (any unit when null) to close first: the
   * least recently used that never asked anything after `initialize` (a
   * flood of opened sessions goes before a working client), then the least
   * recently used without an open stream, then with one.
   */
  const leastRecentIdle = (unit: string | null): HttpSession | undefined => {
    let withoutStream: HttpSession | undefined;
    let withStream: HttpSession | undefined;
    for (const session of sessions.values()) {
      if (unit !== null && session.unit !== unit) continue;
      if (!isIdle(session)) continue;
      if (session.openStreams === 0) {
        if (session.requests === 0) return session;
        withoutStream ??= session;
      } else withStream ??= session;
    }
    return withoutStream ?? withStream;
  };
  const largestUnit = (): string | null => {
    let largest: string | null = null;
    let count = 0;
    for (const [unit, held] of perUnit) {
      if (held > count) [largest, count] = [unit, held];
    }
    return largest;
  };
  return {
    get: (id) => sessions.get(id),
    size: () => sessions.size,
    sizeOf: (unit) => perUnit.get(unit) ?? 0,
    add: (session) => {
      sessions.set(session.id, session);
      perUnit.set(session.unit, (perUnit.get(session.unit) ?? 0) + 1);
    },
    touch: (session) => {
      if (sessions.get(session.id) !== session) return;
      sessions.delete(session.id);
      sessions.set(session.id, session);
    },
    remove: (id) => {
      const session = sessions.get(id);
      if (session !== undefined) forget(session);
    },
    makeRoom: async (unit, { maxSessions, maxPerUnit }) => {
      if ((perUnit.get(unit) ?? 0) >= maxPerUnit) {
        const own = leastRecentIdle(unit);
        if (own === undefined) return "unit-busy";
        await close(own);
      }
      if (sessions.size < maxSessions) return null;
      const largest = largestUnit();
      const victim = (largest === null ? undefined : leastRecentIdle(largest)) ??
        leastRecentIdle(null);
      if (victim === undefined) return "all-busy";
      await close(victim);
      return null;
    },
    closeIdle: async (nowMs, idleMs) => {
      const idle = [...sessions.values()].filter((session) =>
        isIdle(session) && session.openStreams === 0 && nowMs - session.lastActiveMs >= idleMs
      );
      await Promise.all(idle.map(close));
      return idle.length;
    },
    closeAll: async () => {
      await Promise.all([...sessions.values()].map(close));
    },
  };
}
