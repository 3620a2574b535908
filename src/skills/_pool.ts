/**
 * Bounded concurrency for file-system work: results keep the order of the
 * inputs, so output stays deterministic however the work interleaves.
 *
 * @module
 */

/** A counting semaphore that runs at most `limit` tasks at once. */
export interface Limiter {
  /** Runs `task` when a slot is free and resolves with its result. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * Creates a {@linkcode Limiter}. Hold a slot only around one I/O call, never
 * while awaiting other limited work, or nested use can deadlock.
 *
 * @param limit Tasks in flight at most; at least 1.
 * @returns The limiter.
 * @throws {RangeError} When `limit` is not a positive integer.
 */
export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Concurrency limit must be a positive integer: "${limit}"`);
  }
  let active = 0;
  const waiting: (() => void)[] = [];
  async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  }
  return { run };
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight.
 *
 * @param items The inputs.
 * @param limit Calls in flight at most; at least 1.
 * @param fn The async mapping; it receives the item and its index.
 * @returns The results in input order.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  }
  const workers = Array.from({ length: Math.min(limit, items.length) }, () => worker());
  await Promise.all(workers);
  return results;
}
