/**
 * The run queue: at most `maxConcurrent` scripts run at once, at most
 * `maxQueued` wait their turn in arrival order, and a run beyond that is
 * refused at once. A waiting run whose request is cancelled leaves the queue.
 *
 * @module
 */

/** The queue is full; the run was refused without waiting. */
export class RunQueueFullError extends Error {
  override name = "RunQueueFullError";
}

/** Options of {@linkcode createRunQueue}. */
export interface RunQueueOptions {
  /** Runs at once at most (config `maxConcurrentRuns`, default 4). */
  readonly maxConcurrent: number;
  /** Runs waiting at most (config `maxQueuedRuns`, at least 64). */
  readonly maxQueued: number;
}

/** A bounded, first-come first-served queue of runs. */
export interface RunQueue {
  /**
   * Runs `task` when a slot is free.
   *
   * @param task The run.
   * @param signal Cancels the wait (the task itself watches its own signal).
   * @returns What the task returns.
   * @throws {RunQueueFullError} When `maxQueued` runs already wait.
   * @throws {DOMException} `AbortError` when `signal` aborts while waiting.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Whether a run arriving now would be accepted (running or waiting). */
  hasRoom(): boolean;
  /** Runs in progress. */
  running(): number;
  /** Runs waiting. */
  waiting(): number;
}

/**
 * Creates a run queue.
 *
 * @param options Parallelism and the waiting bound (positive integers).
 * @returns The queue.
 * @throws {RangeError} When a bound is not a positive integer.
 *
 * Source: issue 4, "Concurrency" (parallelism 4, at least 64 waiting, a clear refusal beyond).
 */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`Queue option "${name}" must be a positive integer, got "${value}"`);
    }
  }
  let active = 0;
  const waiters: { start: () => void }[] = [];
  const release = () => {
    active--;
    const next = waiters.shift();
    if (next !== undefined) next.start();
  };
  return {
    run: <T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
      const go = async (): Promise<T> => {
        active++;
        try {
          return await task();
        } finally {
          release();
        }
      };
      if (active < options.maxConcurrent && waiters.length === 0) return go();
      if (waiters.length >= options.maxQueued) {
        return Promise.reject(
          new RunQueueFullError(
            `${options.maxConcurrent} scripts are running and ${waiters.length} are waiting, ` +
              "the most this server queues",
          ),
        );
      }
      if (signal?.aborted) return Promise.reject(abortError());
      return new Promise<T>((resolve, reject) => {
        const waiter = {
          start: () => {
            signal?.removeEventListener("abort", onAbort);
            go().then(resolve, reject);
          },
        };
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(abortError());
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    hasRoom: () => active < options.maxConcurrent || waiters.length < options.maxQueued,
    running: () => active,
    waiting: () => waiters.length,
  };
}

function abortError(): DOMException {
  return new DOMException("The run was cancelled while it waited", "AbortError");
}
