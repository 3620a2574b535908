/**
 * Knowing when a response is really over. A Streamable HTTP answer is often
 * an SSE stream that outlives the handler's return, so a request counts as
 * in flight until its body has been read to the end, failed, or been
 * cancelled by the client.
 *
 * @module
 */

/** Bytes handed to the listener per pull at most (a larger chunk is sliced, not copied). 64 KiB. */
export const MAX_CHUNK_BYTES = 64 * 1024;

/**
 * Wraps `response` so that `onEnd` runs exactly once when its body ends (at
 * once when there is no body).
 *
 * @param response The response to pass on.
 * @param onEnd Called once: body finished, errored or cancelled.
 * @param options `onSent`: called each time a slice of what the response
 *   produced (an SSE event, on a stream) is handed to the listener, so a standby
 *   stream's activity counts what it carries, not only when it opened.
 *   @default none
 * @returns A response with the same status, headers and bytes, in slices of
 *   at most {@linkcode MAX_CHUNK_BYTES}.
 */
export function whenBodyEnds(
  response: Response,
  onEnd: () => void,
  options: { readonly onSent?: () => void } = {},
): Response {
  let hasEnded = false;
  const end = () => {
    if (hasEnded) return;
    hasEnded = true;
    onEnd();
  };
  if (response.body === null) {
    end();
    return response;
  }
  const reader = response.body.getReader();
  let pending: Uint8Array | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (pending === null) {
          const { value, done } = await reader.read();
          if (done) {
            controller.close();
            end();
            return;
          }
          pending = value;
        }
        // Hand over at most one slice per pull: the listener asks for the next
        // only after writing this one, so the body counts as sent (and its
        // answer bytes stay reserved) until it nearly is, not when a 21 MiB
        // chunk was handed to a socket buffer.
        controller.enqueue(pending.subarray(0, MAX_CHUNK_BYTES));
        pending = pending.byteLength > MAX_CHUNK_BYTES ? pending.subarray(MAX_CHUNK_BYTES) : null;
        options.onSent?.();
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
