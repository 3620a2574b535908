/**
 * Reading a request body under a byte cap and a deadline, then parsing it as
 * JSON. The cap is checked against `Content-Length` before anything is read
 * and again while streaming (a chunked body declares no length), so an
 * oversized body never sits in memory whole. The deadline bounds the whole
 * body, so a sender that trickles bytes (or sends one and stops) cannot hold
 * the request's slot forever.
 *
 * @module
 */

import { HTTP_BODY_TIMEOUT_MS } from "../../caps.ts";

/** The outcome of {@linkcode readJsonBody}. */
export type JsonBody =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "too-large"; readonly maxBytes: number }
  | { readonly kind: "timed-out"; readonly timeoutMs: number }
  | { readonly kind: "evicted" }
  | { readonly kind: "aborted" }
  | { readonly kind: "malformed"; readonly reason: string };

/**
 * Reads and parses `request`'s body.
 *
 * @param request The HTTP request (its body is consumed or cancelled).
 * @param maxBytes Bytes read at most; one more is a refusal. Positive.
 * @param options `timeoutMs`: how long the whole body may take to arrive, in
 *   ms; @default HTTP_BODY_TIMEOUT_MS (30 s). `signal`: aborting it ends the
 *   read at once (`evicted`; the body pool does so for a stalled read when
 *   all slots are taken). `onProgress`: called with the size in bytes of each chunk that arrives.
 * @returns `json` with the parsed value; `too-large` when the declared or
 *   actual size exceeds `maxBytes`; `timed-out` when the body did not end in
 *   time (the body is cancelled; the caller answers 408); `evicted` when
 *   `signal` was aborted (cancelled too; 408); `malformed` when
 *   the bytes are not strict UTF-8 or not JSON (the caller answers JSON-RPC
 *   -32700); `aborted` when the body stream failed before its end (the client
 *   disconnected, or the server is shutting down and cut the connection): no
 *   one is left to answer, so the caller only frees what the request held.
 *
 * Source: RFC 9110 section 15.5.9 (408 Request Timeout).
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
  options: { timeoutMs?: number; signal?: AbortSignal; onProgress?: (bytes: number) => void } = {},
): Promise<JsonBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { kind: "too-large", maxBytes };
  }
  const timeoutMs = options.timeoutMs ?? HTTP_BODY_TIMEOUT_MS;
  const text = await readCapped(request.body, maxBytes, timeoutMs, options);
  if (text === "too-large") return { kind: "too-large", maxBytes };
  if (text === "timed-out") return { kind: "timed-out", timeoutMs };
  if (text === "evicted") return { kind: "evicted" };
  if (text === "aborted") return { kind: "aborted" };
  if (text === "not-utf8") {
    return { kind: "malformed", reason: "Parse error: the body is not valid UTF-8" };
  }
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch {
    return { kind: "malformed", reason: "Parse error: Invalid JSON" };
  }
}

/**
 * The text of `body`, decoded as strict UTF-8 chunk by chunk as it arrives
 * (a large body is not decoded in one piece after its end: about 0.7 ns a
 * byte, 0.2 ms for a body at the 256 KiB cap); `too-large` as soon as more than `maxBytes`
 * arrived; `not-utf8` at the end when a byte was not strict UTF-8;
 * `timed-out` when the body has not ended `timeoutMs` after the start;
 * `evicted` when `signal` aborts; `aborted` when the stream failed
 * (connection closed mid-body). Each refusal cancels the body without
 * waiting for its source.
 */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  timeoutMs: number,
  options: { signal?: AbortSignal; onProgress?: (bytes: number) => void },
): Promise<string | "too-large" | "timed-out" | "evicted" | "aborted" | "not-utf8"> {
  if (body === null) return "";
  if (options.signal?.aborted === true) {
    body.cancel().catch(() => {});
    return "evicted";
  }
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parts: string[] = [];
  let isUtf8 = true;
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const deadline = new Promise<"timed-out" | "evicted">((resolve) => {
    timer = setTimeout(() => resolve("timed-out"), timeoutMs);
    onAbort = () => resolve("evicted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    while (true) {
      const next = await Promise.race([
        reader.read().catch(() => "aborted" as const),
        deadline,
      ]);
      if (next === "aborted") return "aborted";
      if (next === "timed-out" || next === "evicted") {
        // Not awaited: a stalled source need not acknowledge the cancel.
        reader.cancel().catch(() => {});
        return next;
      }
      const { value, done } = next;
      if (done) break;
      options.onProgress?.(value.byteLength);
      total += value.byteLength;
      if (total > maxBytes) {
        reader.cancel().catch(() => {});
        return "too-large";
      }
      // Still read to the end after a bad byte, so an oversized body is refused as such.
      if (isUtf8) {
        try {
          parts.push(decoder.decode(value, { stream: true }));
        } catch {
          isUtf8 = false;
          parts.length = 0;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  if (!isUtf8) return "not-utf8";
  try {
    parts.push(decoder.decode());
  } catch {
    return "not-utf8"; // the body ended inside a multi-byte sequence
  }
  return parts.join("");
}
