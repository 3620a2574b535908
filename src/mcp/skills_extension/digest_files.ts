/**
 * Hashing a batch of skill files through the path gate: the digest
 * isolate's work (`digest_entry.ts`): the gate's located open
 * (`readLocatedInChunks` in `bounded_read.ts`: the served-name rules, an
 * open with no-follow and non-blocking, a regular file, and the descriptor's
 * location checked by the trusted part to be exactly the file's path in the
 * skill; where no locator answers, the full gate as the worker's miss path),
 * then SHA-256 over exactly the bytes read, under the open handle's version.
 *
 * @module
 */

import { loadHasher, sha256OfLocatedFile } from "./digest_cache.ts";
import type { DigestJobFile, DigestSeen } from "./digest_messages.ts";

/**
 * Files read at once at most: each holds one open descriptor while its
 * location is checked; the locator sends the checks of all of them in one
 * or two messages (as `DIGEST_CONCURRENCY` in `entries.ts`).
 */
export const HASH_CONCURRENCY = 128;

/**
 * Hashes files through the gate with bounded concurrency.
 *
 * @param files The files (skill real folder and relative path).
 * @param concurrency Files in flight at most, >= 1. @default HASH_CONCURRENCY
 * @returns One result per file, in order: the version the gate saw and the
 *   digest of the bytes read, or null when the gate refused the file, it
 *   vanished or changed while opened, or it is over the extension's 16 MiB
 *   (the worker then hashes it itself and reports why).
 *
 * Requires `--allow-read` on the skill folders, and a descriptor locator
 * (`installFdLocator`) that answers where it can.
 *
 * Source: SEP-2640, "Integrity and Verification" (SHA-256 over the raw bytes).
 */
export async function hashThroughGate(
  files: readonly DigestJobFile[],
  concurrency: number = HASH_CONCURRENCY,
): Promise<(DigestSeen | null)[]> {
  await loadHasher();
  const results = new Array<DigestSeen | null>(files.length).fill(null);
  let next = 0;
  const work = async (): Promise<void> => {
    while (next < files.length) {
      const at = next++;
      const file = files[at];
      if (file === undefined) return;
      try {
        // The located open: the handle's version, checked where the kernel places it (issue 13).
        const { digest, read } = await sha256OfLocatedFile(file.dir, file.path);
        const readAtMs = Date.now();
        results[at] = {
          dev: read.dev,
          ino: read.ino,
          size: read.size,
          mtimeMs: read.mtimeMs,
          ctimeMs: read.ctimeMs,
          digest,
          bytes: read.bytesRead,
          readAtMs,
        };
      } catch {
        results[at] = null;
      }
    }
  };
  const workers = Math.max(1, Math.min(concurrency, files.length));
  await Promise.all(Array.from({ length: workers }, work));
  return results;
}
