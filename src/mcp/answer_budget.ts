/**
 * The byte budget of large answers in flight (`resources/read` up to 16 MiB,
 * `skill_file` up to 4 MiB a call): a method reserves the answer's size,
 * estimated from the listing before it reads a byte, and waits its turn when
 * the budget is spent, so 190 clients reading a 16 MiB file at once hold at
 * most MAX_ANSWER_BYTES_IN_FLIGHT (64 MiB) of answers, not 190 x 21 MiB.
 * Answers up to 1 MiB have their own lane (32 MiB), so ordinary reads never
 * queue behind large ones.
 *
 * Over HTTP a reservation lasts until the answer's response body has been
 * sent (the bytes sit in the response stream until the client reads them):
 * the handler gives each request an {@linkcode AnswerTicket} through the
 * SDK's `authInfo.extra`, and releases it when the body ends. Over stdio, the
 * method releases its reservation when it returns (the answer is written at
 * once), against one process-wide budget.
 *
 * @module
 */

import {
  ANSWER_WAIT_TIMEOUT_MS,
  MAX_ANSWER_BYTES_IN_FLIGHT,
  MAX_SMALL_ANSWER_BYTES_IN_FLIGHT,
  SMALL_ANSWER_BYTES,
} from "../caps.ts";

/** Bytes added to every estimate for the JSON-RPC envelope and the contents' fields. */
export const ANSWER_OVERHEAD_BYTES = 1024;

/** The budget is spent and stayed spent for the whole wait. */
export class AnswerBudgetBusyError extends Error {
  override name = "AnswerBudgetBusyError";
  /**
   * @param waitedMs How long the request waited, in ms.
   * @param maxBytes The budget, in bytes.
   */
  constructor(readonly waitedMs: number, readonly maxBytes: number) {
    super(
      `The server is busy sending other large answers (${maxBytes} bytes at once at most) ` +
        `and this one waited ${Math.round(waitedMs / 1000)} s; send the request again in a few ` +
        "seconds, or read the file in pages with skill_file",
    );
  }
}

/** A shared byte budget. */
export interface AnswerBudget {
  readonly maxBytes: number;
  /** Bytes reserved now. */
  usedBytes(): number;
  /** Reservations waiting now. */
  waiting(): number;
  /**
   * Reserves `bytes`, waiting until they fit: first come first served
   * within one owner, and owners take turns (one grant each), so no session
   * waits behind another's whole flood. A reservation larger than the whole
   * budget is granted when nothing else is reserved.
   *
   * @param bytes Bytes, non-negative.
   * @param options `signal` ends the wait (the request was cancelled);
   *   `timeoutMs` bounds it. @default ANSWER_WAIT_TIMEOUT_MS (20 s).
   *   `owner`: who the reservation is for (a session id); @default a new
   *   owner of its own (the reservation takes its own turn).
   * @returns The release function (idempotent).
   * @throws {AnswerBudgetBusyError} When the wait timed out.
   * @throws {DOMException} (AbortError) When `signal` aborted.
   */
  reserve(
    bytes: number,
    options?: { signal?: AbortSignal; timeoutMs?: number; owner?: string },
  ): Promise<() => void>;
}

/**
 * Creates a budget of two lanes: answers up to SMALL_ANSWER_BYTES draw on
 * the small lane, larger ones on the large lane, so an ordinary read never
 * queues behind a flood of large ones; within a lane, owners (sessions) take
 * turns, so a session never queues behind another session's flood.
 *
 * @param options `maxBytes`: the large lane @default MAX_ANSWER_BYTES_IN_FLIGHT
 *   (64 MiB); `maxSmallBytes`: the small lane @default
 *   MAX_SMALL_ANSWER_BYTES_IN_FLIGHT (32 MiB); `timeoutMs`: the default wait
 *   @default ANSWER_WAIT_TIMEOUT_MS (20 s).
 * @returns The budget.
 */
export function createAnswerBudget(
  options: { maxBytes?: number; maxSmallBytes?: number; timeoutMs?: number } = {},
): AnswerBudget {
  const maxBytes = options.maxBytes ?? MAX_ANSWER_BYTES_IN_FLIGHT;
  const large = createLane(maxBytes);
  const small = createLane(options.maxSmallBytes ?? MAX_SMALL_ANSWER_BYTES_IN_FLIGHT);
  const defaultTimeoutMs = options.timeoutMs ?? ANSWER_WAIT_TIMEOUT_MS;
  return {
    maxBytes,
    usedBytes: () => large.used() + small.used(),
    waiting: () => large.waiting() + small.waiting(),
    reserve: (bytes, { signal, timeoutMs = defaultTimeoutMs, owner } = {}) =>
      (bytes <= SMALL_ANSWER_BYTES ? small : large).reserve(
        bytes,
        owner ?? Symbol("reservation"),
        signal,
        timeoutMs,
      ),
  };
}

/** A reservation waiting in a lane. */
interface Waiter {
  readonly bytes: number;
  readonly grant: () => void;
}

/**
 * One lane of a budget, fair between owners: each owner (a session) waits in
 * its own first-come-first-served line, and the owners take turns, one grant
 * each, in the order they started waiting. A session with a hundred reads
 * waiting thus delays another session's one read by at most one of its own,
 * not by all of them. The owner whose turn it is waits until its answer
 * fits (no one overtakes it), so a large answer is never starved by small
 * ones.
 */
function createLane(maxBytes: number) {
  let used = 0;
  let waiting = 0;
  /** The owners waiting, in turn order (a Map keeps insertion order), each with its line. */
  const turns = new Map<unknown, Waiter[]>();
  const fits = (bytes: number) => used === 0 || used + bytes <= maxBytes;
  const take = (bytes: number) => {
    used += bytes;
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      used -= bytes;
      wake();
    };
  };
  const wake = () => {
    while (turns.size > 0) {
      const [owner, line] = turns.entries().next().value as [unknown, Waiter[]];
      const head = line[0] as Waiter;
      if (!fits(head.bytes)) return;
      line.shift();
      waiting--;
      // Served: this owner's next waiter (if any) goes to the back of the turns.
      turns.delete(owner);
      if (line.length > 0) turns.set(owner, line);
      head.grant();
    }
  };
  return {
    used: () => used,
    waiting: () => waiting,
    reserve: (
      bytes: number,
      owner: unknown,
      signal: AbortSignal | undefined,
      timeoutMs: number,
    ): Promise<() => void> => {
      if (signal?.aborted === true) return Promise.reject(signal.reason);
      if (waiting === 0 && fits(bytes)) return Promise.resolve(take(bytes));
      const startedMs = performance.now();
      return new Promise((resolve, reject) => {
        const entry: Waiter = {
          bytes,
          grant: () => {
            finish();
            resolve(take(bytes));
          },
        };
        const leave = (error: unknown) => {
          const line = turns.get(owner);
          const index = line?.indexOf(entry) ?? -1;
          if (line !== undefined && index >= 0) {
            line.splice(index, 1);
            waiting--;
            if (line.length === 0) turns.delete(owner);
          }
          finish();
          reject(error);
          wake();
        };
        const onAbort = () => leave(signal?.reason);
        const timer = setTimeout(
          () => leave(new AnswerBudgetBusyError(performance.now() - startedMs, maxBytes)),
          timeoutMs,
        );
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const line = turns.get(owner);
        if (line === undefined) turns.set(owner, [entry]);
        else line.push(entry);
        waiting++;
      });
    },
  };
}

/** The reservations of one HTTP request, released together when its response ends. */
export interface AnswerTicket {
  /**
   * Reserves `bytes` until {@linkcode AnswerTicket.releaseAll}.
   *
   * @throws {AnswerBudgetBusyError} When the wait timed out.
   */
  hold(bytes: number, signal?: AbortSignal): Promise<void>;
  /** Releases every reservation (idempotent); later holds are released at once. */
  releaseAll(): void;
}

/**
 * Creates the ticket of one HTTP request.
 *
 * @param budget The handler's budget.
 * @param owner Whose turn the request's reservations take (its session id);
 *   @default each reservation its own turn.
 * @returns The ticket.
 */
export function createAnswerTicket(budget: AnswerBudget, owner?: string): AnswerTicket {
  const releases: (() => void)[] = [];
  let isReleased = false;
  return {
    hold: async (bytes, signal) => {
      const release = await budget.reserve(bytes, {
        ...(signal === undefined ? {} : { signal }),
        ...(owner === undefined ? {} : { owner }),
      });
      if (isReleased) release();
      else releases.push(release);
    },
    releaseAll: () => {
      isReleased = true;
      for (const release of releases.splice(0)) release();
    },
  };
}

/** The key of the ticket in the SDK's `authInfo.extra`. */
export const ANSWER_TICKET_KEY = "skillgate.answerTicket";

/**
 * The `authInfo` the HTTP handler passes to the SDK transport so that the
 * request's methods find its ticket.
 *
 * @param ticket The request's ticket.
 * @returns An AuthInfo-shaped object carrying no credential.
 */
export function ticketAuthInfo(
  ticket: AnswerTicket,
): { token: string; clientId: string; scopes: string[]; extra: Record<string, unknown> } {
  return { token: "", clientId: "", scopes: [], extra: { [ANSWER_TICKET_KEY]: ticket } };
}

let processBudget: AnswerBudget | null = null;

/**
 * Reserves the bytes of a large answer for the request `extra` belongs to:
 * on its HTTP ticket (released when the response has been sent), or else
 * on the process-wide budget (released by calling the returned function when
 * the method returns).
 *
 * @param extra The SDK's request extra (`authInfo`, `signal`).
 * @param bytes The answer's estimated size in bytes.
 * @returns A release function for the method's `finally` (a no-op when the
 *   HTTP ticket holds the bytes).
 * @throws {AnswerBudgetBusyError} When the budget stayed spent for the whole wait.
 */
export async function holdAnswerBytes(
  extra: { authInfo?: { extra?: Record<string, unknown> } | undefined; signal?: AbortSignal },
  bytes: number,
): Promise<() => void> {
  const ticket = extra.authInfo?.extra?.[ANSWER_TICKET_KEY] as AnswerTicket | undefined;
  if (ticket !== undefined) {
    await ticket.hold(bytes, extra.signal);
    return () => {};
  }
  processBudget ??= createAnswerBudget();
  return await processBudget.reserve(
    bytes,
    extra.signal === undefined ? {} : {
      signal: extra.signal,
    },
  );
}

/**
 * The estimated bytes of an answer carrying `contentBytes` of file content:
 * its base64 length (the larger of the two encodings for most files) plus
 * {@linkcode ANSWER_OVERHEAD_BYTES}.
 *
 * @param contentBytes Bytes of file content, non-negative.
 * @returns Bytes.
 */
export function answerBytesFor(contentBytes: number): number {
  return 4 * Math.ceil(contentBytes / 3) + ANSWER_OVERHEAD_BYTES;
}

/**
 * The exact UTF-8 bytes `JSON.stringify` gives a text of these UTF-8
 * `bytes` (quotes excluded), plus {@linkcode ANSWER_OVERHEAD_BYTES}: a C0
 * control becomes 6 bytes (`\u0001`) or 2 (`\n`, `\t`, ...), `"` and `\`
 * become 2, every other byte stays 1. A text of control characters is 6
 * times its file; the base64 estimate made before the read is topped up to
 * this.
 *
 * @param bytes The file's bytes (strict UTF-8).
 * @returns Bytes.
 *
 * Source: ECMA-262, JSON.stringify (QuoteJSONString).
 */
export function answerBytesForText(bytes: Uint8Array): number {
  let total = ANSWER_OVERHEAD_BYTES;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] as number;
    if (byte >= 0x20) total += byte === 0x22 || byte === 0x5c ? 2 : 1;
    else {total += byte === 0x08 || byte === 0x09 || byte === 0x0a || byte === 0x0c ||
          byte === 0x0d
        ? 2
        : 6;}
  }
  return total;
}

/**
 * The UTF-8 bytes `JSON.stringify(text)` takes, quotes excluded: like
 * {@linkcode answerBytesForText} but for a string (code units; a surrogate
 * pair is 4 bytes), without the overhead.
 *
 * @param text Any string.
 * @returns Bytes.
 *
 * Source: ECMA-262, JSON.stringify (QuoteJSONString).
 */
export function jsonEscapedBytes(text: string): number {
  let total = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x20) {
      total += unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d
        ? 2
        : 6;
    } else if (unit === 0x22 || unit === 0x5c) total += 2;
    else if (unit < 0x80) total += 1;
    else if (unit < 0x800) total += 2;
    else if (unit >= 0xd800 && unit <= 0xdfff) total += 2; // half of a 4-byte pair
    else total += 3;
  }
  return total;
}
