/**
 * A bounded, in-memory SSE event store for one HTTP session, so a client whose
 * stream broke can reconnect with `Last-Event-ID` and receive what it missed
 * (MCP 2025-11-25, Streamable HTTP, "Resumability and redelivery"). Giving the
 * SDK transport an event store also makes it send the priming event (an event
 * id, and `retry`) at the start of each SSE stream.
 *
 * Bounded: at most {@linkcode MAX_STORED_EVENTS} events and
 * {@linkcode MAX_STORED_EVENT_BYTES} bytes per session; the oldest go first. A
 * client asking to resume from an event that was dropped gets nothing replayed
 * (the SDK then answers that the event is unknown).
 *
 * @module
 */

import type { JSONRPCMessage } from "../../mcp/sdk.ts";

/** Events kept per session at most. */
export const MAX_STORED_EVENTS = 1_000;
/** Bytes of serialised events kept per session at most (4 MiB). */
export const MAX_STORED_EVENT_BYTES = 4 * 1024 * 1024;

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

/** The SDK's EventStore interface, as this module implements it. */
export interface SessionEventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(
    lastEventId: string,
    sink: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string>;
}

/**
 * Creates an event store for one session. Event ids are `<seq>` counters
 * unique within the session; ids are opaque to clients.
 *
 * @param limits Caps; default {@linkcode MAX_STORED_EVENTS} and
 *   {@linkcode MAX_STORED_EVENT_BYTES}.
 * @returns The store to pass as the SDK transport's `eventStore`.
 */
export function createSessionEventStore(
  limits: { maxEvents?: number; maxBytes?: number } = {},
): SessionEventStore {
  const maxEvents = limits.maxEvents ?? MAX_STORED_EVENTS;
  const maxBytes = limits.maxBytes ?? MAX_STORED_EVENT_BYTES;
  const events: StoredEvent[] = [];
  let totalBytes = 0;
  let sequence = 0;
  const indexOf = (eventId: string) => events.findIndex((event) => event.id === eventId);
  return {
    storeEvent: (streamId, message) => {
      const id = String(++sequence);
      const bytes = JSON.stringify(message).length;
      events.push({ id, streamId, message, bytes });
      totalBytes += bytes;
      while (events.length > maxEvents || (totalBytes > maxBytes && events.length > 1)) {
        totalBytes -= events.shift()?.bytes ?? 0;
      }
      return Promise.resolve(id);
    },
    getStreamIdForEventId: (eventId) => {
      const index = indexOf(eventId);
      return Promise.resolve(index < 0 ? undefined : events[index]?.streamId);
    },
    replayEventsAfter: async (lastEventId, { send }) => {
      const index = indexOf(lastEventId);
      const from = events[index];
      if (from === undefined) return "";
      for (const event of events.slice(index + 1)) {
        if (event.streamId === from.streamId) await send(event.id, event.message);
      }
      return from.streamId;
    },
  };
}
