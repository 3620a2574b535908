/**
 * Summary statistics for benchmark samples: median and p95 by nearest rank,
 * so every figure printed is one that was actually observed (except an even
 * count's median, the mean of the two middle samples).
 *
 * @module
 */

/** The summary of one series of samples, in the samples' unit. */
export interface Summary {
  /** Samples taken. */
  readonly count: number;
  readonly median: number;
  /** 95th percentile by nearest rank (the largest sample when count < 20). */
  readonly p95: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Summarises samples.
 *
 * @param samples At least one finite number, any order (not modified).
 * @returns Count, median, p95 (nearest rank), min and max.
 * @throws {RangeError} When `samples` is empty or holds a non-finite number.
 */
export function summarise(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new RangeError("Cannot summarise an empty series");
  const bad = samples.find((value) => !Number.isFinite(value));
  if (bad !== undefined) throw new RangeError(`Sample is not a finite number: "${bad}"`);
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1
    ? sorted[middle] as number
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return {
    count: sorted.length,
    median,
    p95: percentile(sorted, 95),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
  };
}

/**
 * The nearest-rank percentile of sorted samples: the smallest sample with at
 * least `rank`% of the samples at or below it.
 *
 * @param sorted Samples in ascending order, at least one.
 * @param rank Percentile, 0 < rank <= 100.
 * @returns One of the samples.
 * @throws {RangeError} When `sorted` is empty or `rank` is out of bounds.
 */
export function percentile(sorted: readonly number[], rank: number): number {
  if (sorted.length === 0) throw new RangeError("Cannot take a percentile of an empty series");
  if (!(rank > 0 && rank <= 100)) throw new RangeError(`Percentile out of range: "${rank}"`);
  const index = Math.ceil((rank / 100) * sorted.length) - 1;
  return sorted[Math.max(0, index)] as number;
}
