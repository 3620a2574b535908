/**
 * Knowing when a response is really over. A Streamable HTTP answer is often
 * an SSE stream that outlives the handler's return, so a request counts as
 * in flight until its body has been read to the end, failed, or been
 * cancelled by the client.
 *
 * @module
 */

/**
 * Wraps `response` so that `onEnd` runs exactly once when its body ends (at
 * once when there is no body).
 *
 * @param response The response to pass on.
 * @param onEnd Called once: body finished, errored or cancelled.
 * @returns A response with the same status, headers and bytes.
 */
export function whenBodyEnds(response: Response, onEnd: () => void): Response {
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
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else {
          controller.enqueue(value);
        }
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
