/**
 * The index cache's digest file (issue 13): one binary table of file
 * versions and their SHA-256 digests, held as the one buffer it was read
 * into (no JS object per file: 40,000 entries cost about 7 MiB outside the
 * V8 heap, against about 15 MiB of objects as JSON), with an open-addressing
 * hash index over the keys.
 *
 * Layout (little-endian):
 * - 8 bytes: {@linkcode DIGEST_MAGIC};
 * - u32 version length, then the skillgate version (UTF-8), padded to 8;
 * - u32 record count, u32 key bytes;
 * - per record, {@linkcode RECORD_BYTES}: f64 dev, ino (NaN: none), size,
 *   mtime, ctime, bytes hashed; u32 key offset, u32 key length; 32 digest bytes;
 * - the keys (UTF-8 `realDir NUL relPath`), back to back.
 *
 * Anything else (wrong magic, a length that does not add up, a key or
 * number out of bounds) is corrupt: the whole file is ignored.
 *
 * @module
 */

import type { FileVersion, StoredDigest } from "./index_cache.ts";

/** The file's first 8 bytes. */
export const DIGEST_MAGIC = "SGIDXD02";
/** Bytes per record. */
const RECORD_BYTES = 88;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** What reading a digest file gave. */
export type DigestLoad =
  | { readonly kind: "table"; readonly table: DigestTable }
  | { readonly kind: "other-version" }
  | { readonly kind: "corrupt" };

/** A digest to write: the version, the 32 digest bytes, the bytes hashed. */
export interface DigestRecord {
  readonly key: string;
  readonly version: FileVersion;
  readonly digest: StoredDigest;
}

/** A read-only table of digests, looked up by key and exact version. */
export class DigestTable {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #records: number;
  readonly #recordsAt: number;
  readonly #keysAt: number;
  /** Open addressing: record index + 1, 0 = empty. */
  readonly #slots: Uint32Array;
  #scratch = new Uint8Array(512);

  private constructor(bytes: Uint8Array, records: number, recordsAt: number, keysAt: number) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#records = records;
    this.#recordsAt = recordsAt;
    this.#keysAt = keysAt;
    let size = 16;
    while (size < records * 2) size *= 2;
    this.#slots = new Uint32Array(size);
    for (let index = 0; index < records; index++) {
      const [offset, length] = this.#keyPlace(index);
      const key = bytes.subarray(keysAt + offset, keysAt + offset + length);
      let slot = hashBytes(key, key.length) & (size - 1);
      // A key written twice (never by skillgate): the first record wins.
      while (this.#slots[slot] !== 0) {
        if (this.#sameKey(this.#slots[slot]! - 1, key, key.length)) break;
        slot = (slot + 1) & (size - 1);
      }
      if (this.#slots[slot] === 0) this.#slots[slot] = index + 1;
    }
  }

  /**
   * Reads a digest file's bytes.
   *
   * @param bytes The file's content (kept: the table is a view of it).
   * @param version The running skillgate version.
   * @returns The table, `other-version` for another skillgate's file, or `corrupt`.
   */
  static read(bytes: Uint8Array, version: string): DigestLoad {
    if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 8)) !== DIGEST_MAGIC) {
      return { kind: "corrupt" };
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const versionLength = view.getUint32(8, true);
    const countsAt = pad8(12 + versionLength);
    if (countsAt + 8 > bytes.length) return { kind: "corrupt" };
    const written = new TextDecoder().decode(bytes.subarray(12, 12 + versionLength));
    if (written !== version) return { kind: "other-version" };
    const records = view.getUint32(countsAt, true);
    const keyBytes = view.getUint32(countsAt + 4, true);
    const recordsAt = countsAt + 8;
    const keysAt = recordsAt + records * RECORD_BYTES;
    if (keysAt + keyBytes !== bytes.length) return { kind: "corrupt" };
    for (let index = 0; index < records; index++) {
      const at = recordsAt + index * RECORD_BYTES;
      const dev = view.getFloat64(at, true);
      const ino = view.getFloat64(at + 8, true);
      const size = view.getFloat64(at + 16, true);
      const mtime = view.getFloat64(at + 24, true);
      const ctime = view.getFloat64(at + 32, true);
      const hashed = view.getFloat64(at + 40, true);
      const offset = view.getUint32(at + 48, true);
      const length = view.getUint32(at + 52, true);
      const isSound = Number.isFinite(dev) && (Number.isNaN(ino) || Number.isFinite(ino)) &&
        Number.isSafeInteger(size) && size >= 0 && Number.isFinite(mtime) &&
        Number.isFinite(ctime) && Number.isSafeInteger(hashed) && hashed >= 0 &&
        offset + length <= keyBytes && length > 0;
      if (!isSound) return { kind: "corrupt" };
    }
    return { kind: "table", table: new DigestTable(bytes, records, recordsAt, keysAt) };
  }

  /** Records held. */
  get size(): number {
    return this.#records;
  }

  /**
   * The record index stored under `key`, whatever its version, or -1.
   *
   * @param key `realDir NUL relPath`.
   */
  indexOf(key: string): number {
    const length = this.#encode(key);
    const key8 = this.#scratch;
    const mask = this.#slots.length - 1;
    for (let slot = hashBytes(key8, length) & mask;; slot = (slot + 1) & mask) {
      const held = this.#slots[slot]!;
      if (held === 0) return -1;
      if (this.#sameKey(held - 1, key8, length)) return held - 1;
    }
  }

  /**
   * The digest stored under `key` for exactly this version, or null.
   *
   * @param key `realDir NUL relPath`.
   * @param version The version looked up (no change time or mtime: never a hit).
   */
  lookup(key: string, version: FileVersion): StoredDigest | null {
    if (version.mtimeMs === null || version.ctimeMs === null) return null;
    const index = this.indexOf(key);
    if (index < 0) return null;
    const at = this.#recordsAt + index * RECORD_BYTES;
    const view = this.#view;
    const ino = view.getFloat64(at + 8, true);
    const isSame = view.getFloat64(at, true) === version.dev &&
      (version.ino === null ? Number.isNaN(ino) : ino === version.ino) &&
      view.getFloat64(at + 16, true) === version.size &&
      view.getFloat64(at + 24, true) === version.mtimeMs &&
      view.getFloat64(at + 32, true) === version.ctimeMs;
    if (!isSame) return null;
    let hex = "sha256:";
    for (let i = 0; i < 32; i++) hex += HEX[this.#bytes[at + 56 + i]!];
    return { digest: hex, size: view.getFloat64(at + 40, true) };
  }

  /**
   * One record's bytes and its key's bytes, for copying into a new file.
   *
   * @param index The record index, 0 to `size - 1`.
   */
  recordAt(index: number): { record: Uint8Array; key: Uint8Array } {
    const at = this.#recordsAt + index * RECORD_BYTES;
    const [offset, length] = this.#keyPlace(index);
    return {
      record: this.#bytes.subarray(at, at + RECORD_BYTES),
      key: this.#bytes.subarray(this.#keysAt + offset, this.#keysAt + offset + length),
    };
  }

  #keyPlace(index: number): [number, number] {
    const at = this.#recordsAt + index * RECORD_BYTES;
    return [this.#view.getUint32(at + 48, true), this.#view.getUint32(at + 52, true)];
  }

  #sameKey(index: number, key: Uint8Array, length: number): boolean {
    const [offset, held] = this.#keyPlace(index);
    if (held !== length) return false;
    const start = this.#keysAt + offset;
    for (let i = 0; i < length; i++) if (this.#bytes[start + i] !== key[i]) return false;
    return true;
  }

  /** Encodes `key` into the scratch buffer (grown as needed); returns its byte length. */
  #encode(key: string): number {
    if (this.#scratch.length < key.length * 3) this.#scratch = new Uint8Array(key.length * 3);
    return encoder.encodeInto(key, this.#scratch).written;
  }
}

/**
 * Writes a digest file: `added` first, then the records kept from `table`
 * (those whose key `added` does not replace), up to `maxRecords`.
 *
 * @param version The running skillgate version.
 * @param table The table read at start (or null).
 * @param skip Record indexes of `table` replaced by `added`.
 * @param added New records, each with a complete version (mtime and ctime set).
 * @param maxRecords Records written at most.
 * @returns The file's bytes.
 */
export function writeDigestFile(
  version: string,
  table: DigestTable | null,
  skip: ReadonlySet<number>,
  added: readonly DigestRecord[],
  maxRecords: number,
): Uint8Array {
  const newKeys = added.slice(0, maxRecords).map((entry) => encoder.encode(entry.key));
  const kept: number[] = [];
  for (let index = 0; table !== null && index < table.size; index++) {
    if (newKeys.length + kept.length >= maxRecords) break;
    if (!skip.has(index)) kept.push(index);
  }
  const count = newKeys.length + kept.length;
  let keyBytes = 0;
  for (const key of newKeys) keyBytes += key.length;
  for (const index of kept) keyBytes += table!.recordAt(index).key.length;
  const version8 = encoder.encode(version);
  const recordsAt = pad8(12 + version8.length) + 8;
  const keysAt = recordsAt + count * RECORD_BYTES;
  const bytes = new Uint8Array(keysAt + keyBytes);
  const view = new DataView(bytes.buffer);
  bytes.set(encoder.encode(DIGEST_MAGIC), 0);
  view.setUint32(8, version8.length, true);
  bytes.set(version8, 12);
  view.setUint32(recordsAt - 8, count, true);
  view.setUint32(recordsAt - 4, keyBytes, true);
  let keyAt = 0;
  const place = (index: number, key: Uint8Array) => {
    const at = recordsAt + index * RECORD_BYTES;
    view.setUint32(at + 48, keyAt, true);
    view.setUint32(at + 52, key.length, true);
    bytes.set(key, keysAt + keyAt);
    keyAt += key.length;
  };
  newKeys.forEach((key, index) => {
    const at = recordsAt + index * RECORD_BYTES;
    const { version: v, digest } = added[index]!;
    const numbers = [v.dev, v.ino ?? Number.NaN, v.size, v.mtimeMs ?? 0, v.ctimeMs ?? 0];
    numbers.forEach((value, i) => view.setFloat64(at + i * 8, value, true));
    view.setFloat64(at + 40, digest.size, true);
    const hex = digest.digest.slice("sha256:".length);
    for (let i = 0; i < 32; i++) bytes[at + 56 + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    place(index, key);
  });
  kept.forEach((from, i) => {
    const index = newKeys.length + i;
    const held = table!.recordAt(from);
    bytes.set(held.record, recordsAt + index * RECORD_BYTES);
    place(index, held.key);
  });
  return bytes;
}

function pad8(length: number): number {
  return Math.ceil(length / 8) * 8;
}

/** FNV-1a over the first `length` bytes. */
function hashBytes(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}
