/**
 * Resumable SSE (MCP 2025-11-25, Streamable HTTP, "Resumability and
 * redelivery"). Giving the SDK transport an event store also makes it send
 * the priming event (an event id, and `retry`) at the start of each SSE
 * stream.
 *
 * Bounded in BYTES across all sessions: every session's store draws on one
 * {@linkcode EventBudget} (default {@linkcode MAX_STORED_EVENT_BYTES_TOTAL},
 * 256 MiB), and when it is spent the oldest event of any session goes first.
 * Each session also keeps at most {@linkcode MAX_STORED_EVENTS} events and
 * {@linkcode MAX_STORED_EVENT_BYTES_PER_SESSION} bytes. Sizes are UTF-8 bytes
 * of the serialised message (what the event costs: it is kept as those
 * bytes, not as an object), plus {@linkcode STORED_EVENT_OVERHEAD_BYTES}.
 *
 * Resumability degrades, the server never grows: an event larger than
 * {@linkcode MAX_STORED_EVENT_BYTES_EACH} is sent live but not kept; when it
 * is an answer to a request, a small error answer with the same id is kept in
 * its place, so a client that resumes learns to send that request again
 * instead of waiting forever. A client asking to resume after an event that
 * was dropped gets the SDK's 400 (unknown event id) and starts a new stream.
 *
 * @module
 */

import {
  MAX_STORED_EVENT_BYTES_EACH,
  MAX_STORED_EVENT_BYTES_PER_SESSION,
  MAX_STORED_EVENT_BYTES_TOTAL,
  MAX_STORED_EVENTS,
  STORED_EVENT_OVERHEAD_BYTES,
} from "../../caps.ts";
import type { JSONRPCMessage } from "../../mcp/sdk.ts";

export {
  MAX_STORED_EVENT_BYTES_EACH,
  MAX_STORED_EVENT_BYTES_PER_SESSION,
  MAX_STORED_EVENT_BYTES_TOTAL,
  MAX_STORED_EVENTS,
};

/** The JSON-RPC code of the answer kept in place of one too large to keep. */
export const JSONRPC_ANSWER_NOT_KEPT = -32000;

/** One kept event, linked in its session's order and in the global order. */
interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  /** The serialised message, UTF-8. */
  readonly data: Uint8Array;
  /** `data.byteLength` + the overhead. */
  readonly bytes: number;
  readonly owner: StoreState;
  olderInSession: StoredEvent | null;
  newerInSession: StoredEvent | null;
  olderOverall: StoredEvent | null;
  newerOverall: StoredEvent | null;
}

/** A session store's bookkeeping, as the budget sees it. */
interface StoreState {
  readonly byId: Map<string, StoredEvent>;
  oldest: StoredEvent | null;
  newest: StoredEvent | null;
  bytes: number;
}

/** The byte budget every session's event store of one handler draws on. */
export interface EventBudget {
  /** Bytes the stores may keep in all. */
  readonly maxBytes: number;
  /** Bytes one event may take and still be kept. */
  readonly maxEventBytes: number;
  /** Bytes kept now, across sessions. */
  usedBytes(): number;
  /** Events kept now, across sessions. */
  storedEvents(): number;
}

/** The budget's internals, shared by the stores made over it (module-private). */
interface BudgetState extends EventBudget {
  oldest: StoredEvent | null;
  newest: StoredEvent | null;
  used: number;
  count: number;
}

const budgets = new WeakMap<EventBudget, BudgetState>();

/**
 * Creates a byte budget for stored events.
 *
 * @param limits `maxBytes`: bytes kept across sessions, @default
 *   MAX_STORED_EVENT_BYTES_TOTAL (256 MiB); `maxEventBytes`: bytes one event
 *   may take and still be kept, @default MAX_STORED_EVENT_BYTES_EACH (1 MiB).
 *   Both positive integers.
 * @returns The budget, to pass to {@linkcode createSessionEventStore}.
 * @throws {RangeError} When a limit is not a positive integer.
 */
export function createEventBudget(
  limits: { maxBytes?: number; maxEventBytes?: number } = {},
): EventBudget {
  const maxBytes = positive("maxBytes", limits.maxBytes ?? MAX_STORED_EVENT_BYTES_TOTAL);
  const maxEventBytes = positive(
    "maxEventBytes",
    limits.maxEventBytes ?? MAX_STORED_EVENT_BYTES_EACH,
  );
  const state: BudgetState = {
    maxBytes,
    maxEventBytes,
    oldest: null,
    newest: null,
    used: 0,
    count: 0,
    usedBytes: () => state.used,
    storedEvents: () => state.count,
  };
  const budget: EventBudget = Object.freeze({
    maxBytes,
    maxEventBytes,
    usedBytes: state.usedBytes,
    storedEvents: state.storedEvents,
  });
  budgets.set(budget, state);
  return budget;
}

/** The SDK's EventStore interface, as this module implements it, plus disposal. */
export interface SessionEventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(
    lastEventId: string,
    sink: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string>;
  /** Bytes this session keeps now. */
  bytes(): number;
  /** Forgets every event and gives its bytes back to the budget (session closed). Idempotent. */
  dispose(): void;
}

/**
 * Creates the event store of one session. Event ids are `<seq>` counters
 * unique within the session; ids are opaque to clients. Lookups by id are a
 * `Map`, replay walks the session's own list.
 *
 * @param budget The handler's shared budget; one of its own when omitted
 *   (tests).
 * @param limits `maxEvents` (@default MAX_STORED_EVENTS, 1,000) and
 *   `maxBytes` (@default MAX_STORED_EVENT_BYTES_PER_SESSION, 4 MiB) for this
 *   session.
 * @returns The store to pass as the SDK transport's `eventStore`.
 */
export function createSessionEventStore(
  budget: EventBudget = createEventBudget(),
  limits: { maxEvents?: number; maxBytes?: number } = {},
): SessionEventStore {
  const shared = budgets.get(budget);
  if (shared === undefined) throw new TypeError("The budget was not made by createEventBudget()");
  const maxEvents = limits.maxEvents ?? MAX_STORED_EVENTS;
  const maxBytes = limits.maxBytes ?? MAX_STORED_EVENT_BYTES_PER_SESSION;
  const own: StoreState = { byId: new Map(), oldest: null, newest: null, bytes: 0 };
  let sequence = 0;
  let isDisposed = false;
  const encoder = new TextEncoder();
  return {
    storeEvent: (streamId, message) => {
      const id = String(++sequence);
      if (isDisposed) return Promise.resolve(id);
      const data = serialiseWithin(message, Math.min(shared.maxEventBytes, maxBytes), encoder);
      if (data === null) return Promise.resolve(id);
      link(shared, own, {
        id,
        streamId,
        data,
        bytes: data.byteLength + STORED_EVENT_OVERHEAD_BYTES,
        owner: own,
        olderInSession: null,
        newerInSession: null,
        olderOverall: null,
        newerOverall: null,
      });
      while (own.byId.size > maxEvents || own.bytes > maxBytes) drop(shared, own.oldest);
      while (shared.used > shared.maxBytes) drop(shared, shared.oldest);
      return Promise.resolve(id);
    },
    getStreamIdForEventId: (eventId) => Promise.resolve(own.byId.get(eventId)?.streamId),
    replayEventsAfter: async (lastEventId, { send }) => {
      const from = own.byId.get(lastEventId);
      if (from === undefined) return "";
      // Taken before the first send: events stored or dropped meanwhile do not
      // change what this replay sends (later ones go out live).
      const later: StoredEvent[] = [];
      for (let event = from.newerInSession; event !== null; event = event.newerInSession) {
        if (event.streamId === from.streamId) later.push(event);
      }
      const decoder = new TextDecoder();
      for (const event of later) {
        await send(event.id, JSON.parse(decoder.decode(event.data)) as JSONRPCMessage);
      }
      return from.streamId;
    },
    bytes: () => own.bytes,
    dispose: () => {
      isDisposed = true;
      while (own.oldest !== null) drop(shared, own.oldest);
    },
  };
}

/**
 * The UTF-8 bytes of `message` when they fit in `maxBytes` (the overhead
 * included); otherwise, for an answer, the bytes of a small error answer with
 * its id; otherwise null. A message whose strings alone exceed the room is
 * refused before it is serialised (no second copy of a 21 MiB answer), and a
 * serialisation longer than the room in code units before it is encoded
 * (UTF-8 takes at least one byte per code unit).
 */
function serialiseWithin(
  message: JSONRPCMessage,
  maxBytes: number,
  encoder: TextEncoder,
): Uint8Array | null {
  const room = maxBytes - STORED_EVENT_OVERHEAD_BYTES;
  if (jsonCharsAtLeast(message, room) <= room) {
    const text = JSON.stringify(message);
    if (text.length <= room) {
      const data = encoder.encode(text);
      if (data.byteLength <= room) return data;
    }
  }
  if (!("id" in message) || ("method" in message)) return null;
  const substitute = {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: JSONRPC_ANSWER_NOT_KEPT,
      message: `The answer was larger than the ${room} bytes kept for resuming a stream; ` +
        "send the request again",
    },
  };
  return encoder.encode(JSON.stringify(substitute));
}

/**
 * A lower bound of `JSON.stringify(value).length`, counted until it passes
 * `limit`: each string at least its length and quotes, each key its length,
 * quotes and colon, anything else at least one character.
 */
function jsonCharsAtLeast(value: unknown, limit: number): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const item = pending.pop();
    if (typeof item === "string") total += item.length + 2;
    else if (Array.isArray(item)) {
      total += 2;
      for (const child of item) pending.push(child);
    } else if (item !== null && typeof item === "object") {
      total += 2;
      for (const [key, child] of Object.entries(item)) {
        total += key.length + 3;
        pending.push(child);
      }
    } else total += 1;
  }
  return total;
}

function link(shared: BudgetState, own: StoreState, event: StoredEvent): void {
  event.olderInSession = own.newest;
  if (own.newest !== null) own.newest.newerInSession = event;
  own.newest = event;
  own.oldest ??= event;
  own.byId.set(event.id, event);
  own.bytes += event.bytes;
  event.olderOverall = shared.newest;
  if (shared.newest !== null) shared.newest.newerOverall = event;
  shared.newest = event;
  shared.oldest ??= event;
  shared.used += event.bytes;
  shared.count++;
}

function drop(shared: BudgetState, event: StoredEvent | null): void {
  if (event === null) return;
  const own = event.owner;
  if (event.olderInSession !== null) event.olderInSession.newerInSession = event.newerInSession;
  else own.oldest = event.newerInSession;
  if (event.newerInSession !== null) event.newerInSession.olderInSession = event.olderInSession;
  else own.newest = event.olderInSession;
  own.byId.delete(event.id);
  own.bytes -= event.bytes;
  if (event.olderOverall !== null) event.olderOverall.newerOverall = event.newerOverall;
  else shared.oldest = event.newerOverall;
  if (event.newerOverall !== null) event.newerOverall.olderOverall = event.olderOverall;
  else shared.newest = event.olderOverall;
  shared.used -= event.bytes;
  shared.count--;
  event.olderInSession =
    event.newerInSession =
    event.olderOverall =
    event.newerOverall =
      null;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Option ${name} must be a positive integer (got "${value}")`);
  }
  return value;
}
