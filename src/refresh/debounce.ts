/**
 * Collecting file-system events into batches: an editor's save is a burst of
 * writes, renames and attribute changes; one refresh should follow the burst,
 * not each event.
 *
 * @module
 */

/** Options of {@linkcode createPathDebouncer}. */
export interface DebounceOptions {
  /** Quiet time after the last event before the batch is handed over, in ms. @default 200 */
  readonly quietMs?: number;
  /** Longest a batch waits under a steady stream of events, in ms. @default 2000 */
  readonly maxWaitMs?: number;
}

/** A debouncer of changed paths. */
export interface PathDebouncer {
  /** Adds paths to the current batch and restarts the quiet period. */
  add(paths: readonly string[]): void;
  /** Drops the pending batch and its timers. */
  close(): void;
}

/**
 * Creates a debouncer that calls `onBatch` with the distinct paths collected,
 * once no path was added for `quietMs`, or `maxWaitMs` after the batch's
 * first path, whichever comes first.
 *
 * @param onBatch Receives each batch (distinct paths in arrival order).
 * @param options Quiet period (default 200 ms) and longest wait (default 2000 ms).
 * @returns The debouncer.
 * @throws {RangeError} When a duration is not a non-negative integer.
 */
export function createPathDebouncer(
  onBatch: (paths: string[]) => void,
  options: DebounceOptions = {},
): PathDebouncer {
  const quietMs = checkMs("quietMs", options.quietMs ?? 200);
  const maxWaitMs = checkMs("maxWaitMs", options.maxWaitMs ?? 2000);
  let batch = new Set<string>();
  let quietTimer: ReturnType<typeof setTimeout> | undefined;
  let maxTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last path came (`performance.now()` ms). */
  let lastAddMs = 0;
  const flush = () => {
    clearTimeout(quietTimer);
    clearTimeout(maxTimer);
    quietTimer = undefined;
    maxTimer = undefined;
    const paths = [...batch];
    batch = new Set();
    if (paths.length > 0) onBatch(paths);
  };
  // The quiet timer is moved lazily: it fires, sees a later path, and waits out the rest. An add
  // costs no timer, so a flood of events (a folder exchanged in a tight loop: ~150,000 a second)
  // does not keep the thread busy clearing and setting timers.
  const onQuiet = () => {
    const sinceLastMs = performance.now() - lastAddMs;
    if (sinceLastMs >= quietMs) {
      flush();
      return;
    }
    quietTimer = setTimeout(onQuiet, Math.ceil(quietMs - sinceLastMs));
  };
  return {
    add(paths) {
      if (paths.length === 0) return;
      for (const path of paths) batch.add(path);
      lastAddMs = performance.now();
      quietTimer ??= setTimeout(onQuiet, quietMs);
      maxTimer ??= setTimeout(flush, maxWaitMs);
    },
    close() {
      clearTimeout(quietTimer);
      clearTimeout(maxTimer);
      quietTimer = undefined;
      maxTimer = undefined;
      batch = new Set();
    },
  };
}

function checkMs(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Option ${name} must be a non-negative integer (got "${value}")`);
  }
  return value;
}
