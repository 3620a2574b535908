/**
 * The standby-stream share of each client unit beyond loopback: how many
 * standby streams (`standby.ts`: a 2025-era session `GET` stream, a
 * 2026-07-28 `subscriptions/listen` stream) one unit may hold open at once.
 * A standby stream is not a request in flight, so it holds no slot of the
 * unit's request share (`MAX_HTTP_REQUESTS_PER_CLIENT`): open streams never
 * make that unit's requests 429 (review r16, A6). They are bounded by this
 * count of their own instead. A unit is an address (or a /64): clients
 * behind one NAT or proxy share it, so each stream is bound to the session
 * that opened it (its owner), and at the count only a stream of the SAME
 * owner is closed for the new one (the spec lets a server close such a
 * stream at any time; the client opens it again); with none, the new one is
 * refused (429) and every open stream stays: a neighbour behind the same
 * address can never close another client's stream (review r17, hF-2). A
 * 2026-07-28 listen stream has no session (the era is stateless), so it has
 * no owner: at the count it is refused, never made room for. Another unit's
 * streams are never touched. Pure bookkeeping plus the close of a stream's
 * body; no I/O of its own.
 *
 * Source: MCP 2025-11-25, "Transports" ("Listening for Messages from the
 * Server": the server may close the SSE stream at any time); MCP 2026-07-28,
 * "Subscriptions".
 *
 * @module
 */

/** Open standby streams per client unit, bounded. */
export interface StandbyShare {
  /**
   * Counts `response` as a standby stream of `unit` opened by `owner` and
   * returns the response to send: the same status and headers, its body
   * closable by this share. When the unit already holds `maxPerUnit` open
   * streams, the oldest of the same owner is closed first (its body ends;
   * its client opens it again); when the owner holds none (or is null), the
   * new stream is refused: its body is cancelled and null is returned.
   *
   * @param unit The client unit (`clientUnitOf`).
   * @param owner The session that opened the stream (`Mcp-Session-Id`), or
   *   null where there is none (a 2026-07-28 listen stream).
   * @param response The streaming answer (a non-null body).
   * @returns The answer to send, its body ending (by the client, the server
   *   or this share) taking the stream off the count; or null when refused
   *   (the caller answers 429).
   */
  open(unit: string, owner: string | null, response: Response): Response | null;
  /** Open standby streams of `unit` (tests, diagnostics). */
  count(unit: string): number;
  /** Streams closed so far to make room for a newer one of their own session. */
  closedForNewer(): number;
  /** New streams refused so far: their unit was at its count and held none of their session. */
  refused(): number;
}

/**
 * Creates a share.
 *
 * @param maxPerUnit Open standby streams one unit may hold, at least 1
 *   (`MAX_HTTP_STREAMS_PER_CLIENT`, 64).
 * @returns The share; units with no open stream hold no entry.
 * @throws {RangeError} When `maxPerUnit` is not a positive integer.
 */
export function createStandbyShare(maxPerUnit: number): StandbyShare {
  if (!Number.isInteger(maxPerUnit) || maxPerUnit < 1) {
    throw new RangeError(`maxPerUnit must be a positive integer, got ${maxPerUnit}`);
  }
  /** Each unit's open streams (their close, and their owner), oldest first (a Map keeps order). */
  const byUnit = new Map<string, Map<() => void, string | null>>();
  let closedForNewer = 0;
  let refused = 0;
  return {
    open(unit, owner, response) {
      let open = byUnit.get(unit);
      if (open === undefined) {
        open = new Map();
        byUnit.set(unit, open);
      }
      while (open.size >= maxPerUnit) {
        const own = owner === null
          ? undefined
          : [...open].find(([, openedBy]) => openedBy === owner)?.[0];
        if (own === undefined) {
          refused++;
          response.body?.cancel("too many standby streams for this client").catch(() => {});
          return null;
        }
        open.delete(own);
        closedForNewer++;
        own();
      }
      // The last close may have dropped the unit's entry: this stream keeps it.
      byUnit.set(unit, open);
      const streams = open;
      let close: () => void = () => {};
      const body = closableBody(response.body, (closer) => {
        close = closer;
        streams.set(closer, owner);
      }, () => {
        streams.delete(close);
        if (streams.size === 0 && byUnit.get(unit) === streams) byUnit.delete(unit);
      });
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },
    count: (unit) => byUnit.get(unit)?.size ?? 0,
    closedForNewer: () => closedForNewer,
    refused: () => refused,
  };
}

/**
 * A body that relays `source` and that its owner can close: closing ends it
 * cleanly for the reader (as a finished SSE stream) and cancels `source`.
 * `onEnd` runs once, however it ends (finished, cancelled by the reader,
 * closed by the owner, errored).
 */
function closableBody(
  source: ReadableStream<Uint8Array> | null,
  register: (close: () => void) => void,
  onEnd: () => void,
): ReadableStream<Uint8Array> | null {
  if (source === null) {
    onEnd();
    return null;
  }
  const reader = source.getReader();
  let hasEnded = false;
  const end = () => {
    if (hasEnded) return;
    hasEnded = true;
    onEnd();
  };
  let controllerOf: ReadableStreamDefaultController<Uint8Array> | null = null;
  const close = () => {
    if (hasEnded) return;
    end();
    try {
      controllerOf?.close();
    } catch {
      // Already closed or errored by the reader's side.
    }
    reader.cancel("closed for a newer standby stream of the same session").catch(() => {});
  };
  register(close);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controllerOf = controller;
    },
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (hasEnded) return;
        if (done) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(value);
      } catch (error) {
        if (hasEnded) return;
        end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
}
