/**
 * Groups small requests to the trusted part into few messages: requests made
 * in one synchronous run are sent together after a microtask, and those made
 * while a batch is in flight once it is answered, each batch at most
 * `maxBatch` long (the rest wait for the next). One batch is in flight at a
 * time. No timer is added: a lone request waits one microtask. The
 * descriptor locator and both folder readers of `fd_locate_client.ts` are
 * built on it (issue 13: one round trip per file was a third of a cold
 * listing's cost).
 *
 * @module
 */

/** Options of {@linkcode createMicroBatcher}. */
export interface MicroBatcherOptions<Request, Answer> {
  /** Requests one batch holds at most, at least 1 (the receiver's bound on one message). */
  readonly maxBatch: number;
  /**
   * Sends one batch and resolves with one answer per request, in order, or
   * null when there is no usable answer. Must not reject.
   */
  readonly send: (batch: readonly Request[]) => Promise<readonly Answer[] | null>;
  /**
   * What every request of a batch gets when `send` answered null, or not
   * exactly one answer per request: a fail-closed value.
   */
  readonly failClosed: Answer;
}

/**
 * Creates a function that queues one request and resolves with its answer
 * from the batch it was sent in.
 *
 * @param options The batch bound, the sender and the fail-closed answer.
 * @returns The request function; it never rejects.
 * @throws {RangeError} When `maxBatch` is not a positive integer.
 */
export function createMicroBatcher<Request, Answer>(
  options: MicroBatcherOptions<Request, Answer>,
): (request: Request) => Promise<Answer> {
  const { maxBatch, send, failClosed } = options;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) {
    throw new RangeError(`maxBatch must be a positive integer, got ${maxBatch}`);
  }
  type Item = { readonly request: Request; readonly resolve: (answer: Answer) => void };
  const queued: Item[] = [];
  let isInFlight = false;
  let isFlushQueued = false;
  const sendNext = () => {
    const batch = queued.splice(0, maxBatch);
    isInFlight = true;
    void send(batch.map((item) => item.request)).then((answers) => {
      const isWhole = answers !== null && answers.length === batch.length;
      batch.forEach((item, index) => item.resolve(isWhole ? answers[index] as Answer : failClosed));
      isInFlight = false;
      if (queued.length > 0) sendNext();
    });
  };
  const flush = () => {
    isFlushQueued = false;
    if (!isInFlight && queued.length > 0) sendNext();
  };
  return (request) =>
    new Promise<Answer>((resolve) => {
      queued.push({ request, resolve });
      if (!isInFlight && !isFlushQueued) {
        isFlushQueued = true;
        queueMicrotask(flush);
      }
    });
}
