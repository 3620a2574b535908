/**
 * node:http's request and response objects on one side, the transport's
 * `handler(Request): Promise<Response>` on the other. The request body is
 * streamed (pulled from the connection only as the handler reads it, so the
 * handler's body cap and deadline in `read_body.ts` still decide); the
 * response body is streamed with backpressure (the next chunk is read from
 * the handler's stream only after the connection took the last one); a
 * client that disconnects cancels the response stream and aborts the
 * request's signal, so an SSE stream ends with its connection.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Answers one node:http request with `handler`.
 *
 * @param req node:http's request (headers parsed, body not yet read).
 * @param res Its response.
 * @param handler The transport's handler; never throws.
 * @param options `origin`: the listen address as `http://host:port`, the
 *   base of the Request URL (the `Host` header is passed on untouched for the
 *   handler's own check). When the answer starts before the request body was
 *   read to its end, the body is cancelled (nothing more is parsed) and the
 *   answer carries `connection: close`, so an unread body cannot follow as a
 *   next request.
 * @returns Resolves when the response has ended or the connection closed.
 * @throws {Error} Only when node:http refuses the handler's status or
 *   headers (`writeHead`); the caller destroys the connection.
 */
export async function answerNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (request: Request) => Promise<Response>,
  options: { origin: string },
): Promise<void> {
  // node emits `error` on a request or response whose connection failed; one with no
  // listener is an uncaught exception that ends the worker. The connection's own close
  // (below) is what this bridge acts on.
  req.on("error", ignore);
  res.on("error", ignore);
  const aborter = new AbortController();
  const closed = new Promise<void>((resolve) => {
    res.once("close", () => {
      resolve();
      if (res.writableFinished) return;
      try {
        aborter.abort(new Error("The client closed the connection"));
      } catch { /* a listener's fault must not escape a node event handler */ }
    });
  });
  let request: Request;
  try {
    request = toRequest(req, options.origin, aborter.signal);
  } catch {
    req.pause();
    res.writeHead(400, { "content-type": "text/plain", connection: "close" });
    res.end("Bad Request: the request line or a header is not valid\n");
    return;
  }
  const response = await handler(request);
  if (!req.complete) {
    // The handler is done with the body (refused, timed out, or never read it): stop parsing
    // it. Rejects harmlessly when a reader still holds it; that reader's cancel pauses it too.
    await request.body?.cancel().catch(() => {});
    req.pause();
  }
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    // Hop-by-hop (RFC 9110 section 7.6.1): whether the connection stays open is node:http's
    // call, from the request and the server's state. The SDK sets `connection: keep-alive` on
    // every SSE answer, which made node keep a connection the client asked to close.
    if (name === "keep-alive" || (name === "connection" && value.toLowerCase() !== "close")) return;
    headers.push([name, value]);
  });
  // A body the handler did not read to its end cannot stay on a kept-alive connection.
  if (!req.complete) headers.push(["connection", "close"]);
  res.writeHead(response.status, response.statusText || undefined, headers.flat());
  if (response.body === null) {
    res.end();
    return;
  }
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    res.flushHeaders(); // an SSE client waits for the headers before the first event
  }
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  aborter.signal.addEventListener("abort", stop, { once: true });
  try {
    while (!res.destroyed && !res.writableEnded) {
      const next = await Promise.race([reader.read(), closed.then(() => null)]);
      if (next === null || next.done || res.destroyed) break;
      if (!res.write(next.value)) await drainedOrClosed(res, closed);
    }
    if (!res.destroyed && !res.writableEnded) res.end();
  } catch {
    res.destroy(); // the handler's stream failed mid-answer: the client sees the cut
  } finally {
    aborter.signal.removeEventListener("abort", stop);
    if (res.destroyed) stop();
  }
}

/**
 * A fetch `Request` for node's request: the same method, path and headers
 * (`Host` included, as sent), and the body as a stream that pulls from the
 * connection.
 *
 * @throws {TypeError} When the target or a header cannot form a Request.
 */
function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const target = req.url ?? "/";
  // Origin-form targets ("/mcp?x") resolve against the listen address; absolute-form keeps its own.
  const url = new URL(target.startsWith("/") ? origin + target : target);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    headers.append(raw[index] as string, raw[index + 1] as string);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: bodyStream(req), duplex: "half" } : {}),
  });
}

/**
 * The request body, read from the connection only as it is pulled.
 *
 * Every node callback here may fire after the stream was closed, errored or
 * cancelled (node emits `readable` on the next tick, a body keeps arriving
 * after the handler refused it): `state` is checked before the controller is
 * touched, a cancel detaches the pending pull's listeners at once, and the
 * request is paused so nothing more is parsed (TCP backpressure holds the
 * rest; the answer then closes the connection). A throw out of a node event
 * handler would end the worker, so none can leave here.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let state: "open" | "settled" = "open";
  /** Detaches the listeners of the pull in progress and resolves it; null when none is. */
  let stopPull: (() => void) | null = null;
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  /** Ends the stream once: `act` closes or errors the controller; later calls do nothing. */
  const settle = (act: (c: ReadableStreamDefaultController<Uint8Array>) => void = () => {}) => {
    if (state !== "open") return;
    state = "settled";
    stopPull?.();
    try {
      if (controller !== null) act(controller);
    } catch { /* the stream was already closed by its reader */ }
  };
  const onError = (error: Error) => settle((c) => c.error(error));
  return new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
      req.on("error", onError); // stays: a later `error` with no listener would be uncaught
    },
    pull(pulled) {
      if (state !== "open") return;
      return new Promise<void>((resolve) => {
        let isDone = false;
        const finish = () => {
          if (isDone) return;
          isDone = true;
          stopPull = null;
          req.off("readable", onReadable);
          req.off("end", onEnd);
          req.off("close", onClose);
          resolve();
        };
        const onReadable = () => {
          if (state !== "open") return finish();
          const chunk = req.read() as Uint8Array | null;
          if (chunk === null) return; // wait for the next `readable` or `end`
          try {
            pulled.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          } catch {
            settle(); // closed by its reader between the check and here
            req.pause();
          }
          finish();
        };
        const onEnd = () => {
          settle((c) => c.close());
          finish();
        };
        const onClose = () => {
          if (!req.complete) {
            settle((c) => c.error(new Error("The connection closed before the body ended")));
          }
          finish();
        };
        stopPull = finish;
        if (req.readableEnded) return onEnd();
        req.on("readable", onReadable);
        req.once("end", onEnd);
        req.once("close", onClose);
        onReadable();
      });
    },
    cancel() {
      // Nothing more is read; the answer closes the connection (see answerNodeRequest).
      settle();
      req.pause();
    },
  });
}

/** Resolves on the response's next `drain` or when the connection closed, whichever is first. */
function drainedOrClosed(res: ServerResponse, closed: Promise<void>): Promise<void> {
  let onDrain = () => {};
  const drained = new Promise<void>((resolve) => {
    onDrain = resolve;
    res.once("drain", onDrain);
  });
  // The `drain` listener goes with the wait, so a stalled SSE client does not collect them.
  return Promise.race([drained, closed]).finally(() => res.off("drain", onDrain));
}

/** An `error` listener that only keeps node from treating the error as uncaught. */
function ignore(): void {}
