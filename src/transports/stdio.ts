/**
 * Serves an MCP server over the process's stdin/stdout from inside the worker.
 * When stdin ends, it waits for the answers still in flight to be written
 * before reporting that the session is over, so a client that writes its
 * requests and closes stdin still gets every answer.
 *
 * What was wrong with the input is said on stderr, one line each, never on
 * stdout (stdout carries JSON-RPC only): a line that is not JSON or not a
 * JSON-RPC message is ignored and the session goes on; a message over the
 * SDK's 10 MiB read buffer closes the session, and the session then ends
 * with a non-zero exit code so a client or supervisor sees a failure.
 *
 * @module
 */

import process from "node:process";
import {
  type JSONRPCMessage,
  type McpRequestContext,
  type Server,
  serveStdio,
  StdioServerTransport,
} from "../mcp/sdk.ts";

/** How long answers still in flight may take after stdin ends, in ms. */
export const DRAIN_TIMEOUT_MS = 30_000;

/** Characters of an error's reason a stderr line quotes at most. */
export const MAX_LOGGED_REASON_CHARS = 200;

/** The exit code of a session closed by an oversized message. */
export const EXIT_OVERSIZED_MESSAGE = 1;

/** How a stdio session ended. */
export interface StdioSessionEnd {
  /** 0 when stdin ended or the transport closed normally; non-zero on a failure. */
  readonly exitCode: number;
}

/**
 * A stdio transport that does not close when stdin ends: the v2 SDK's
 * transport closes (and refuses every later write) as soon as stdin ends,
 * which would drop the answers still in flight. Here stdin's end is reported
 * through {@linkcode DrainingStdioTransport.onstdinend} and the owner closes
 * the transport once those answers are written.
 */
export class DrainingStdioTransport extends StdioServerTransport {
  /** Called once when stdin ends or closes; the transport stays open. */
  onstdinend?: () => void;
  #stdinEnded = false;

  /** Replaces the SDK's close-on-end with the {@linkcode onstdinend} report. */
  override _onstdinclose = (): void => {
    if (this.#stdinEnded) return;
    this.#stdinEnded = true;
    this.onstdinend?.();
  };
}

/**
 * Starts reading stdin now, into the stream's own buffer, consuming nothing:
 * Node's `read(0)` on the paused stream, which asks the underlying source
 * for data without taking any. The transport connected later (the SDK's
 * `StdioServerTransport` over the same `process.stdin`) receives exactly the
 * bytes it would have read itself, in order, from the first one; only the
 * read's own latency (the read op's round trip through Deno's runtime,
 * several event-loop turns) has passed meanwhile. A stdin already at its end
 * is seen as ended by the transport's start (`readableEnded`).
 *
 * Why (issue 13): a small catalog's worker connects the transport after its
 * build has started and holds `initialize` until the catalog is loaded; a
 * warm build ends before the first message was even read, so the first
 * answer waited on that read with nothing else to do (bench/results/issue13.md,
 * section s9-h3). Started at the beginning of `serve`, the read overlaps the
 * build.
 *
 * Call it only in a worker that serves over stdio (nothing else may read
 * stdin). Calling it again does nothing more.
 */
export function primeStdin(): void {
  if (isStdinPrimed) return;
  isStdinPrimed = true;
  process.stdin.read(0);
}

let isStdinPrimed = false;

/**
 * Serves stdio with one dual-era MCP connection and resolves when the session
 * is over: stdin ended (and in-flight answers were written, up to
 * {@linkcode DRAIN_TIMEOUT_MS}) or the transport closed. The SDK's
 * `serveStdio` pins the connection to the era of its first message: an
 * `initialize` pins 2025-11-25 (handshake, elicitation, unsolicited
 * list-changed notifications), a request carrying the 2026-07-28 `_meta`
 * envelope pins 2026-07-28 (`server/discover`, `subscriptions/listen`,
 * `input_required`). Transport errors are logged to stderr, one line each
 * (see {@linkcode describeTransportError}).
 *
 * @param createServer Builds the one server of the connection, told its era;
 *   called once, on the first message.
 * @param options `log`: where the one-line reports go (default: stderr via
 *   `console.error`; never stdout). `onFirstAnswer`: called once, after the
 *   first response of the session was written (work that can wait, such as
 *   the search index, starts then). @default none `holdUntil`: until it
 *   resolves, every message but `initialize` and `ping` waits, in arrival
 *   order (a large catalog still loading: issue 13). @default none
 *   `holdsInitialize`: `holdUntil` holds `initialize` and `ping` too (a
 *   small catalog still loading while the transport already reads: the
 *   server is created on the first message released, with the catalog
 *   complete). @default false
 *   `onRequest`: called as each request arrives (the worker builds the search
 *   index once requests pause). @default none `onAnswer`: called after each
 *   response was written (background work waits for requests to pause; issue
 *   13). @default none
 * @returns A promise that settles once serving started, holding `closed`,
 *   which resolves with `{exitCode}` when the session is over: 0 normally,
 *   {@linkcode EXIT_OVERSIZED_MESSAGE} when a message over the read buffer
 *   closed it.
 *
 * Source: MCP 2025-11-25 and 2026-07-28, "Transports", stdio (the server MAY
 * write logs to stderr and MUST NOT write anything but MCP messages to stdout).
 */
export async function serveOverStdio(
  createServer: (context: McpRequestContext) => Server,
  options: {
    log?: (line: string) => void;
    onFirstAnswer?: () => void;
    holdUntil?: Promise<void>;
    holdsInitialize?: boolean;
    onRequest?: () => void;
    onAnswer?: () => void;
  } = {},
): Promise<{ closed: Promise<StdioSessionEnd> }> {
  const log = options.log ?? ((line: string) => console.error(line));
  const transport = new DrainingStdioTransport();
  const inFlight = new Set<string | number>();
  let idle: (() => void) | null = null;
  let isOversized = false;
  let firstAnswer = options.onFirstAnswer;
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      if (firstAnswer !== undefined) {
        const call = firstAnswer;
        firstAnswer = undefined;
        call();
      }
      inFlight.delete(message.id);
      options.onAnswer?.();
      if (inFlight.size === 0 && idle !== null) idle();
    }
  };
  const handle = serveStdio(createServer, {
    legacy: "serve",
    transport,
    onerror: (error: Error) => {
      const report = describeTransportError(error);
      if (report.isOversized) isOversized = true;
      log(report.line);
      // A batch line gets JSON-RPC's answer to an invalid request (id null), not silence.
      if (isBatchError(error)) {
        send(
          {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32600, message: STDIO_BATCH_REFUSAL },
          } as unknown as JSONRPCMessage,
        ).catch(() => {});
      }
    },
  });
  const receive = transport.onmessage;
  // Held until the catalog is complete: everything but `initialize` and `ping` (unless
  // `holdsInitialize`), in order.
  let held: JSONRPCMessage[] | null = options.holdUntil === undefined ? null : [];
  options.holdUntil?.then(() => {
    const queued = held ?? [];
    held = null;
    for (const message of queued) receive?.(message);
  });
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && "id" in message) {
      inFlight.add(message.id);
      options.onRequest?.();
    }
    const answersAtOnce = options.holdsInitialize !== true && "method" in message &&
      (message.method === "initialize" || message.method === "ping");
    if (held !== null && (held.length > 0 || !answersAtOnce)) held.push(message);
    else receive?.(message);
  };
  const sdkClose = transport.onclose;
  const closed = new Promise<StdioSessionEnd>((resolve) => {
    let isDone = false;
    const end = () => {
      if (isDone) return;
      isDone = true;
      resolve({ exitCode: isOversized ? EXIT_OVERSIZED_MESSAGE : 0 });
      handle.close().catch(() => {});
    };
    transport.onstdinend = () => {
      setTimeout(end, DRAIN_TIMEOUT_MS).unref?.();
      if (inFlight.size === 0) end();
      else idle = end;
    };
    transport.onclose = () => {
      sdkClose?.();
      end();
    };
  });
  return await Promise.resolve({ closed });
}

/**
 * The answer to a JSON-RPC batch over stdio. The SDK reads one message per
 * line and serves no batch on any revision; batches were removed from the
 * protocol in 2025-06-18 (the revisions skillgate prefers). Answered with
 * JSON-RPC's "Invalid Request" (`-32600`, id null) so the client is not left
 * waiting.
 */
export const STDIO_BATCH_REFUSAL = "Invalid Request: JSON-RPC batches are not served over " +
  "stdio (removed from the protocol in 2025-06-18); send each message on its own line";

/**
 * Whether the SDK's stdio transport rejected a line because it is a JSON
 * array (a JSON-RPC batch): its schema reports, for every branch of the
 * message union, "expected object, received array" at the top level.
 *
 * @param error What the SDK's stdio transport reported.
 * @returns True for a batch line.
 */
export function isBatchError(error: Error): boolean {
  if (error?.name !== "ZodError") return false;
  const issues = (error as unknown as { issues?: unknown }).issues;
  if (!Array.isArray(issues) || issues.length !== 1) return false;
  const top = issues[0] as { code?: unknown; path?: unknown; errors?: unknown; message?: unknown };
  const isArrayIssue = (issue: unknown) => {
    const item = issue as { path?: unknown; message?: unknown };
    return Array.isArray(item.path) && item.path.length === 0 &&
      typeof item.message === "string" && item.message.endsWith("received array");
  };
  if (isArrayIssue(top)) return true;
  if (top.code !== "invalid_union" || !Array.isArray(top.errors) || top.errors.length === 0) {
    return false;
  }
  return top.errors.every((branch) => Array.isArray(branch) && branch.some(isArrayIssue));
}

/**
 * Says in one stderr line what was wrong with the input: a line that is not
 * JSON or not a JSON-RPC message (ignored; the session goes on), a message
 * over the SDK's read buffer (the transport closes the session), or another
 * stdin failure. The reason is the error's own message, whitespace collapsed
 * and cut to {@linkcode MAX_LOGGED_REASON_CHARS} characters (a schema
 * mismatch is described in words instead of zod's list of union branches).
 *
 * @param error What the SDK's stdio transport reported.
 * @returns `{line, isOversized}`: the line starts with `skillgate: ` and
 *   holds no newline.
 */
export function describeTransportError(error: Error): { line: string; isOversized: boolean } {
  const reason = String(error?.message ?? error).replace(/\s+/g, " ").trim();
  const cut = reason.length > MAX_LOGGED_REASON_CHARS
    ? `${reason.slice(0, MAX_LOGGED_REASON_CHARS)}…`
    : reason;
  const oversized = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(reason);
  if (oversized !== null) {
    const mib = Number(oversized[1]) / (1024 * 1024);
    return {
      line: `skillgate: a message over ${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB ` +
        "closed the session",
      isOversized: true,
    };
  }
  if (error instanceof SyntaxError) {
    return {
      line: `skillgate: ignored a message that is not valid JSON-RPC: ${cut}`,
      isOversized: false,
    };
  }
  if (isBatchError(error)) {
    return {
      line: "skillgate: refused a JSON-RPC batch (a JSON array on one line): answered " +
        "Invalid Request; batches are not part of the protocol since 2025-06-18",
      isOversized: false,
    };
  }
  if (error?.name === "ZodError") {
    // The schema's own report is a long list of union branches; say what it means.
    return {
      line: "skillgate: ignored a message that is not valid JSON-RPC: valid JSON, but not a " +
        'JSON-RPC 2.0 request, notification or response ("jsonrpc": "2.0" with a method or a ' +
        "result or error)",
      isOversized: false,
    };
  }
  return { line: `skillgate: stdio transport error: ${cut}`, isOversized: false };
}
