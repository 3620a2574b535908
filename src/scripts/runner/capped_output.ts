/**
 * Collects one output stream of a script up to a byte cap, draining (and
 * counting) the rest so the script never blocks on a full pipe.
 *
 * @module
 */

/** What one stream produced. */
export interface CappedOutput {
  /** The first `maxBytes` bytes, decoded as UTF-8 with U+FFFD for bad sequences. */
  readonly text: string;
  /** Bytes the stream produced in all (kept or not). */
  readonly totalBytes: number;
  /** Whether bytes beyond the cap were dropped. */
  readonly isTruncated: boolean;
}

/** A stream being collected. */
export interface OutputCollector {
  /** Resolves when the stream ends (or is cancelled). */
  readonly done: Promise<void>;
  /** Stops reading (e.g. a detached grandchild holds the pipe); idempotent. */
  abandon(): Promise<void>;
  /** The collected output so far. */
  result(): CappedOutput;
}

/**
 * Starts collecting a stream.
 *
 * @param stream The child's stdout or stderr.
 * @param options `maxBytes` kept (non-negative integer) and an `onBytes`
 *   callback with the running total, for progress.
 * @returns The collector; `done` never rejects.
 */
export function collectOutput(
  stream: ReadableStream<Uint8Array>,
  options: { maxBytes: number; onBytes?: (totalBytes: number) => void },
): OutputCollector {
  const reader = stream.getReader();
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let totalBytes = 0;
  let abandoned = false;
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done || value === undefined) break;
        totalBytes += value.length;
        const room = options.maxBytes - keptBytes;
        if (room > 0) {
          const piece = value.length <= room ? value : value.subarray(0, room);
          kept.push(piece);
          keptBytes += piece.length;
        }
        options.onBytes?.(totalBytes);
      }
    } catch {
      // A cancelled or broken pipe ends the stream; what was read is kept.
    } finally {
      reader.releaseLock();
    }
  })();
  return {
    done,
    abandon: async () => {
      if (abandoned) return;
      abandoned = true;
      await reader.cancel().catch(() => {});
      await done;
    },
    result: () => {
      const bytes = new Uint8Array(keptBytes);
      let offset = 0;
      for (const piece of kept) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
      return {
        text: new TextDecoder("utf-8", { fatal: false }).decode(bytes),
        totalBytes,
        isTruncated: totalBytes > keptBytes,
      };
    },
  };
}
