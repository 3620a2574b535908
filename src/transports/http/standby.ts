/**
 * Standby streams: answers that stay open only to carry notifications the
 * server may send later (the 2025-era session `GET` stream, a 2026-07-28
 * `subscriptions/listen` stream). No work is in progress on them, and the
 * spec lets a server close one at any time: the client opens it again (a
 * `GET` with `Last-Event-ID` when it saw an event id, so stored events are
 * replayed; a listen stream is requested again and the client refreshes what
 * it lists). The handler marks such a response here; the listener reads the
 * mark and lets the connection give way to a newcomer at the connection cap
 * (`connections.ts`), so idle streams cannot lock new clients out.
 *
 * Source: MCP 2025-11-25, "Transports" (Streamable HTTP, "Listening for
 * Messages from the Server", resumability); MCP 2026-07-28,
 * "Subscriptions".
 *
 * @module
 */

/** What the listener needs to know about a standby stream. */
export interface Standby {
  /**
   * When it was last in use, in ms since the epoch: its client's last
   * request (a 2025 session's; a listen stream's opening), or the last event
   * it carried to the client, whichever is later. At the cap the stream
   * least recently active gives way first.
   */
  readonly lastActiveMs: () => number;
}

const marks = new WeakMap<Response, Standby>();

/**
 * Marks `response` as a standby stream.
 *
 * @param response The streaming answer the handler returns (after any wrapping).
 * @param standby How recent its client's activity is.
 * @returns The same response.
 */
export function markStandby(response: Response, standby: Standby): Response {
  marks.set(response, standby);
  return response;
}

/**
 * The standby mark of `response`.
 *
 * @param response An answer of the handler.
 * @returns Its mark, or undefined for any other answer (work in progress).
 */
export function standbyOf(response: Response): Standby | undefined {
  return marks.get(response);
}
