/**
 * The live HTTP sessions of a stateful handler, keyed by `Mcp-Session-Id`:
 * one MCP server and one SDK transport each. Bounded: idle sessions are
 * closed before a new one would exceed the ceiling.
 *
 * @module
 */

import type { Server, WebStandardStreamableHTTPServerTransport } from "../../mcp/sdk.ts";
import type { InFlight } from "./in_flight.ts";

/** One session. Mutable fields are the handler's bookkeeping. */
export interface HttpSession {
  readonly id: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** Requests in flight in this session (bounded per session). */
  readonly inFlight: InFlight;
  /** Open response streams that are not request answers (the GET stream). */
  openStreams: number;
  /** When a request last started or ended, in ms since the epoch. */
  lastActiveMs: number;
}

/** The table of sessions. */
export interface SessionTable {
  get(id: string): HttpSession | undefined;
  size(): number;
  add(session: HttpSession): void;
  /** Forgets a session (its transport closed). Idempotent. */
  remove(id: string): void;
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
 * @returns The table.
 */
export function createSessionTable(): SessionTable {
  const sessions = new Map<string, HttpSession>();
  const close = async (session: HttpSession) => {
    sessions.delete(session.id);
    await session.server.close().catch(() => {});
  };
  return {
    get: (id) => sessions.get(id),
    size: () => sessions.size,
    add: (session) => {
      sessions.set(session.id, session);
    },
    remove: (id) => {
      sessions.delete(id);
    },
    closeIdle: async (nowMs, idleMs) => {
      const idle = [...sessions.values()].filter((session) =>
        session.inFlight.count() === 0 && session.openStreams === 0 &&
        nowMs - session.lastActiveMs >= idleMs
      );
      await Promise.all(idle.map(close));
      return idle.length;
    },
    closeAll: async () => {
      await Promise.all([...sessions.values()].map(close));
    },
  };
}
