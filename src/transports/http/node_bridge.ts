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
 *   handler's own check); `onBodyUnread`: called when the answer ends before
 *   the request body was read to its end (the connection is then closed, so
 *   an unread body cannot follow as a next request).
 * @returns Resolves when the response has ended or the connection closed.
 */
export async function answerNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (request: Request) => Promise<Response>,
  options: { origin: string },
): Promise<void> {
  const aborter = new AbortController();
  const closed = new Promise<void>((resolve) => {
    res.once("close", () => {
      if (!res.writableFinished) aborter.abort(new Error("The client closed the connection"));
      resolve();
    });
  });
  let request: Request;
  try {
    request = toRequest(req, options.origin, aborter.signal);
  } catch {
    res.writeHead(400, { "content-type": "text/plain", connection: "close" });
    res.end("Bad Request: the request line or a header is not valid\n");
    return;
  }
  const response = await handler(request);
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
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
    while (!res.destroyed) {
      const next = await Promise.race([reader.read(), closed.then(() => null)]);
      if (next === null || next.done) break;
      if (!res.write(next.value)) await Promise.race([drained(res), closed]);
    }
    if (!res.destroyed) res.end();
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

/** The request body, read from the connection only as it is pulled. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.once("error", (error) => {
        try {
          controller.error(error);
        } catch { /* already closed */ }
      });
    },
    pull(controller) {
      return new Promise<void>((resolve) => {
        const finish = () => {
          req.off("readable", onReadable);
          req.off("end", onEnd);
          req.off("error", finish);
          req.off("close", onClose);
          resolve();
        };
        const onReadable = () => {
          const chunk = req.read() as Uint8Array | null;
          if (chunk === null) return; // wait for the next `readable` or `end`
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          finish();
        };
        const onEnd = () => {
          try {
            controller.close();
          } catch { /* already closed */ }
          finish();
        };
        const onClose = () => {
          if (!req.complete) {
            try {
              controller.error(new Error("The connection closed before the body ended"));
            } catch { /* already closed */ }
          }
          finish();
        };
        if (req.readableEnded) return onEnd();
        req.on("readable", onReadable);
        req.once("end", onEnd);
        req.once("error", finish);
        req.once("close", onClose);
        onReadable();
      });
    },
    cancel() {
      // Nothing more is read; the response closes the connection (see answerNodeRequest).
      req.pause();
    },
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.once("drain", () => resolve()));
}
