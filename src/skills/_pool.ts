/**
 * Bounded concurrency for file-system work: results keep the order of the
 * inputs, so output stays deterministic however the work interleaves.
 *
 * @module
 */

/**
 * Maps `items` through `fn` with at most `limit` calls in flight.
 *
 * @param items The inputs.
 * @param limit Calls in flight at most; at least 1.
 * @param fn The async mapping; it receives the item and its index.
 * @returns The results in input order.
 * @throws The first error a call threw; no item is started after it (the
 *   calls in flight then end on their own, their results dropped). Review
 *   r16: the pool's other workers went on taking items, so a catch-up rescan
 *   stopped for an edit (`BackgroundWorkStopped`) loaded the rest of its
 *   skills in the background, for nothing.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let hasFailed = false;
  async function worker(): Promise<void> {
    while (!hasFailed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        hasFailed = true;
        throw error;
      }
    }
  }
  const workers = Array.from({ length: Math.min(limit, items.length) }, () => worker());
  await Promise.all(workers);
  return results;
}
