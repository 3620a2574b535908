/**
 * SHA-256 digests of skill files for SEP-2640 manifests, cached by file
 * identity. A file is resolved through the path gate and read whole through
 * `readWhole` (never more than the extension's per-skill byte limit); its
 * digest is remembered under its device, inode, size and modification time,
 * so an unchanged file is hashed once however often skills are listed, and
 * any write (new size or mtime) or replacement (new inode) misses the cache.
 *
 * @module
 */

import { readWhole } from "../../files/bounded_read.ts";
import { resolveSkillFile } from "../../files/path_gate.ts";
import { EXTENSION_MAX_BYTES } from "../../skills/extension_eligibility.ts";

/** The digest and size of one file's raw bytes. */
export interface FileDigest {
  /** `sha256:` and 64 lowercase hexadecimal characters. */
  readonly digest: string;
  /** Bytes hashed: the file's size when it was read. */
  readonly size: number;
}

/** A cache of file digests; see {@linkcode createDigestCache}. */
export interface DigestCache {
  /**
   * The digest of a skill file, from the cache when its identity, size and
   * mtime are unchanged, else read and hashed.
   *
   * @throws {PathRefusedError} When the path gate refuses the file or it
   *   vanished or changed while being opened.
   * @throws {FileTooLargeError} When the file is over 16 MiB.
   */
  digest(skillRealDir: string, relPath: string): Promise<FileDigest>;
  /** Entries held now. */
  readonly size: number;
  /** Files read and hashed so far (cache misses), for tests and benchmarks. */
  readonly hashed: number;
}

/** Options of {@linkcode createDigestCache}. */
export interface DigestCacheOptions {
  /** Entries kept at most; the least recently used go first. @default 100000 */
  readonly maxEntries?: number;
}

/**
 * Creates a digest cache.
 *
 * @param options `maxEntries` (default 100,000; about 200 bytes each).
 * @returns The cache.
 * @throws {RangeError} When `maxEntries` is not a positive integer.
 *
 * Requires `--allow-read` on the skill folders.
 *
 * Source: SEP-2640, "Integrity and Verification" (SHA-256 over the raw
 * bytes, `sha256:{hex}`, lowercase) and "Limits" (16 MiB per skill).
 */
export function createDigestCache(options: DigestCacheOptions = {}): DigestCache {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`Option maxEntries must be a positive integer (got "${maxEntries}")`);
  }
  const entries = new Map<string, FileDigest>();
  let hashed = 0;
  return {
    async digest(skillRealDir, relPath) {
      const file = await resolveSkillFile(skillRealDir, relPath);
      const key = `${file.dev}:${file.ino ?? file.realPath}:${file.size}:${file.mtimeMs}`;
      const known = entries.get(key);
      if (known !== undefined) {
        entries.delete(key);
        entries.set(key, known);
        return known;
      }
      const bytes = await readWhole(file, EXTENSION_MAX_BYTES);
      hashed++;
      const result: FileDigest = Object.freeze({
        digest: await sha256Digest(bytes),
        size: bytes.length,
      });
      // A file written while it was read may hash bytes of neither version: cache only a
      // read whose length matches the size the key was taken at.
      if (bytes.length === file.size) {
        entries.set(key, result);
        if (entries.size > maxEntries) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
      }
      return result;
    },
    get size() {
      return entries.size;
    },
    get hashed() {
      return hashed;
    },
  };
}

/**
 * Formats the SHA-256 digest of bytes as SEP-2640 writes it.
 *
 * @param bytes The raw bytes.
 * @returns `sha256:` followed by 64 lowercase hexadecimal characters.
 *
 * Source: SEP-2640, "Integrity and Verification".
 */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}
