/**
 * The worker's request/reply channel to the trusted part over postMessage:
 * each request carries an id, the trusted part answers with a reply of a
 * known type and the same id, and a request left without a reply settles with
 * a fail-closed value after a timeout. The group kill client and the
 * descriptor locate client are both built on it.
 *
 * @module
 */

/** How long a request waits for the trusted part's reply, in ms. */
export const TRUSTED_REPLY_TIMEOUT_MS = 5_000;

/** The message port requests go through (the worker's global scope). */
export interface RequestPort<Request> {
  postMessage(message: Request): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/** Options of {@linkcode createTrustedRequester}. */
export interface TrustedRequesterOptions<Answer> {
  /** The `type` of the replies this requester hears; others are ignored. */
  readonly replyType: string;
  /** Reads the answer from an untrusted reply of that type. */
  readonly readAnswer: (reply: Readonly<Record<string, unknown>>) => Answer;
  /** The answer when no reply came in time: a fail-closed value. */
  readonly onTimeout: Answer;
  /** How long to wait for a reply, in ms. @default TRUSTED_REPLY_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/**
 * Creates a function that posts a request with a fresh id and resolves with
 * the answer in the matching reply, or `onTimeout` when none comes in time.
 * Never rejects.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @param options The reply type, how to read an answer, and the timeout.
 * @returns The request function; it takes the request without its `id`.
 */
export function createTrustedRequester<Request extends { readonly id: number }, Answer>(
  port: RequestPort<Request>,
  options: TrustedRequesterOptions<Answer>,
): (request: Omit<Request, "id">) => Promise<Answer> {
  let nextId = 1;
  const pending = new Map<number, (answer: Answer) => void>();
  port.addEventListener("message", (event: MessageEvent) => {
    const reply = event.data as Record<string, unknown> | null;
    if (reply?.type !== options.replyType || typeof reply.id !== "number") return;
    pending.get(reply.id)?.(options.readAnswer(reply));
    pending.delete(reply.id);
  });
  return (request) => {
    const id = nextId++;
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(options.onTimeout);
      }, options.timeoutMs ?? TRUSTED_REPLY_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      port.postMessage({ ...request, id } as Request);
    });
  };
}
