/**
 * Reading a request body under a byte cap, then parsing it as JSON. The cap
 * is checked against `Content-Length` before anything is read and again while
 * streaming (a chunked body declares no length), so an oversized body never
 * sits in memory whole.
 *
 * @module
 */

/** The outcome of {@linkcode readJsonBody}. */
export type JsonBody =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "too-large"; readonly maxBytes: number }
  | { readonly kind: "malformed"; readonly reason: string };

/**
 * Reads and parses `request`'s body.
 *
 * @param request The HTTP request (its body is consumed or cancelled).
 * @param maxBytes Bytes read at most; one more is a refusal. Positive.
 * @returns `json` with the parsed value; `too-large` when the declared or
 *   actual size exceeds `maxBytes`; `malformed` when the bytes are not strict
 *   UTF-8 or not JSON (the caller answers JSON-RPC -32700).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { kind: "too-large", maxBytes };
  }
  const bytes = await readCapped(request.body, maxBytes);
  if (bytes === null) return { kind: "too-large", maxBytes };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { kind: "malformed", reason: "Parse error: the body is not valid UTF-8" };
  }
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch {
    return { kind: "malformed", reason: "Parse error: Invalid JSON" };
  }
}

/** All bytes of `body`, or null as soon as more than `maxBytes` arrived. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
