/**
 * SHA-256 digests of skill files for SEP-2640 manifests, cached by file
 * version. A file is resolved through the path gate and read whole, in
 * chunks, through `readWholeInChunks` (never more than the extension's per-skill byte limit); its
 * digest is remembered under the skill's real folder, the file's path and
 * the version the gate saw: device, inode, size, modification time and
 * change time (an in-place edit that keeps size and mtime changes the last).
 *
 * A lookup uses the version the catalog snapshot lists for the file (taken by
 * the same kind of stat at discovery), so a warm manifest costs no
 * file-system call at all; only a miss goes through the gate, reads and
 * hashes. With an index cache attached, a digest it keeps is looked up there
 * each time (one binary table outside the V8 heap) and not copied into this
 * cache's memory, which holds only the digests the index cache skipped
 * (issue 13: 40,000 copies under long version keys, ~10 MiB at 10,000
 * skills). Why that is safe:
 * - Every cached digest covers bytes read through the gate: the miss path is
 *   the only writer, and it stores a digest under the version the gate
 *   reported for the very file it read (and only when the read's length is
 *   that version's size, and the version's change time is past the racy
 *   window: Deno gives it in whole seconds and mtime can be put back, so an
 *   in-place edit in the same second keeps every field; review r5).
 * - A hit therefore gives the digest of the bytes of that exact version, the
 *   version the snapshot lists: the manifest describes the snapshot, as its
 *   sizes and the rest of the catalog do. After a write (new ctime, whatever
 *   the size and mtime) or a replacement (new inode), live refresh lists the new version, which
 *   misses and is read through the gate again.
 * - Between a change and that refresh (or forever under `--static`, or when
 *   a watcher misses the event) a manifest can still carry the listed
 *   version's digest: a host that re-checks it against `resources/read`
 *   sees a mismatch and refuses the file; it never gets a digest for bytes
 *   that were not read through the gate. No hit reads anything, so a file
 *   swapped for a link leading outside is never read: `resources/read`
 *   refuses it through the gate.
 *
 * @module
 */

import {
  type LocatedRead,
  readLocatedInChunks,
  readWholeInChunks,
} from "../../files/bounded_read.ts";
import { retryingOnDescriptorShortage } from "../../files/descriptor_shortage.ts";
import { type ResolvedFile, resolveSkillFileSync } from "../../files/path_gate.ts";
import { EXTENSION_MAX_BYTES } from "../../skills/extension_eligibility.ts";
import { type IndexCache, RACY_WINDOW_MS } from "../../skills/index_cache.ts";
import type { SkillFile } from "../../skills/skill.ts";
import type { DigestSeen } from "./digest_messages.ts";

/** The worker's persistent index cache, consulted after the in-memory one (issue 13). */
let persistent: IndexCache | null = null;

/**
 * Lets every digest cache of this isolate consult and fill the persistent
 * index cache: a listed version (device, inode, size, mtime, ctime) hashed
 * by an earlier start is not read again; a digest computed here is stored
 * under the version the gate saw.
 *
 * @param cache The worker's index cache, or null to stop using one.
 */
export function attachIndexCache(cache: IndexCache | null): void {
  persistent = cache;
}

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
   * The digest of a skill file as the catalog lists it: from the cache when
   * that version (device, inode, size, mtime, ctime) was hashed before, with no
   * file-system call; else resolved through the path gate, read and hashed.
   * A listing without device and inode (a catalog not built by discovery)
   * goes through the gate every time and looks up the version the gate sees.
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it (`Skill.files`).
   * @throws {PathRefusedError} When the path gate refuses the file or it
   *   vanished or changed while being opened (misses only).
   * @throws {FileTooLargeError} When the file is over 16 MiB (misses only).
   */
  digest(skillRealDir: string, listed: SkillFile): Promise<FileDigest>;
  /**
   * {@linkcode DigestCache.digest}, telling as well whether the answer is the
   * digest held for exactly the listed version: answered from memory or the
   * index cache for that version, or read now through the gate at that very
   * version (and stored). What {@linkcode DigestCache.listedDigest} would
   * give right after, without a second lookup (issue 13: the first full
   * `skills/list` checks every file).
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it (`Skill.files`).
   * @returns The digest, and `isListed`.
   * @throws {PathRefusedError} As {@linkcode DigestCache.digest}.
   * @throws {FileTooLargeError} As {@linkcode DigestCache.digest}.
   */
  digestListed(
    skillRealDir: string,
    listed: SkillFile,
  ): Promise<{ readonly found: FileDigest; readonly isListed: boolean }>;
  /**
   * What {@linkcode DigestCache.digestListed} answers from memory or the
   * index cache, without a promise: the digest held for exactly the listed
   * version (device, inode, size, mtime, ctime; `isListed` true), marked
   * recently used as a lookup there would; null when none is held (a miss,
   * a version being hashed, or a listing without device and inode), which
   * only `digestListed` answers (issue 13: a first full `skills/list` at
   * 10,000 skills made 40,000 asynchronous lookups of digests all held).
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it (`Skill.files`).
   * @returns The held digest, or null.
   */
  heldListed(skillRealDir: string, listed: SkillFile): FileDigest | null;
  /**
   * Whether this listed version's digest is in memory now (no file-system
   * call, no change to the eviction order): the hash-ahead skips such files.
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it.
   * @returns True when {@linkcode DigestCache.digest} would answer from memory.
   */
  holds(skillRealDir: string, listed: SkillFile): boolean;
  /**
   * The digest held in memory for exactly this listed version (device,
   * inode, size, mtime, ctime), without a file-system call or a change to the
   * eviction order; null when none is held (or the listing has no device
   * and inode). A result equal to it was stored from bytes the gate read
   * at that version, or loaded for that version from the index cache.
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it.
   * @returns The held digest, or null.
   */
  listedDigest(skillRealDir: string, listed: SkillFile): FileDigest | null;
  /**
   * Whether the listed version's digest is neither held (in memory or the
   * index cache) nor being computed now: what the digest isolate is offered
   * (no file-system call).
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it.
   * @returns True when {@linkcode DigestCache.digest} would read the file now.
   */
  isUnhashed(skillRealDir: string, listed: SkillFile): boolean;
  /**
   * Hands the miss path of one listed file to another hasher (the digest
   * isolate, issue 13) until `seen` settles: a lookup of that version
   * meanwhile awaits it instead of reading the file. What `seen` gives is
   * stored exactly as a read here would store it: under the version that
   * hasher's gate saw, and only when it read that version's size. When it
   * gives null (not hashed there, or that hasher failed), the file is read
   * here through the gate, as on any miss.
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it (with device and inode).
   * @param seen The version the other gate saw and the digest of the bytes it read.
   * @returns False (and `seen` is not used) when the version is held or in
   *   flight already, or the listing has no device and inode.
   */
  hashElsewhere(skillRealDir: string, listed: SkillFile, seen: Promise<DigestSeen | null>): boolean;
  /**
   * {@linkcode DigestCache.hashElsewhere} for an answer already in hand (the
   * digest isolate's listing pass, issue 13: 30,000 files at 10,000 skills,
   * each a promise chain and an in-flight entry there): stored at once by the
   * same rule, under the version that hasher's gate saw, only when it read
   * that version's size, and never for a version racy at the read.
   *
   * @param skillRealDir The skill's real folder (`Skill.realDir`).
   * @param listed The file as the snapshot lists it (with device and inode).
   * @param seen The version the other gate saw and the digest of the bytes it read.
   * @returns False (nothing stored) when the version is held or in flight
   *   already, or the listing has no device and inode.
   */
  storeFromElsewhere(skillRealDir: string, listed: SkillFile, seen: DigestSeen): boolean;
  /** Entries held in memory now (digests the index cache did not take). */
  readonly size: number;
  /** Files read and hashed so far (cache misses), for tests and benchmarks. */
  readonly hashed: number;
  /** Digests stored from another hasher so far (`hashElsewhere`), for tests and benchmarks. */
  readonly hashedElsewhere: number;
  /** Path-gate resolutions so far (each miss has one), for tests and benchmarks. */
  readonly resolved: number;
}

/** Options of {@linkcode createDigestCache}. */
export interface DigestCacheOptions {
  /** Entries kept at most; the least recently used go first. @default 100000 */
  readonly maxEntries?: number;
  /**
   * The clock (ms since the epoch) a version's change time is compared with: a
   * version changed within `RACY_WINDOW_MS` of it is not kept. @default Date.now
   */
  readonly now?: () => number;
}

/**
 * Creates a digest cache.
 *
 * @param options `maxEntries` (default 100,000; about 200 bytes each);
 *   `now`, the clock for the racy window (default `Date.now`).
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
  const now = options.now ?? Date.now;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`Option maxEntries must be a positive integer (got "${maxEntries}")`);
  }
  const entries = new Map<string, FileDigest>();
  let hashed = 0;
  let resolved = 0;
  let hashedElsewhere = 0;
  const recall = (key: string): FileDigest | undefined => {
    const known = entries.get(key);
    if (known !== undefined) {
      entries.delete(key);
      entries.set(key, known);
    }
    return known;
  };
  /** Stores a digest under a version key, dropping the least recently used past the bound. */
  const keep = (key: string, result: FileDigest): void => {
    entries.set(key, result);
    if (entries.size > maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  };
  /**
   * The index cache's digest of one version, as a fresh result (not kept in memory: the
   * index cache holds it once, in its binary table; issue 13: a second copy of 40,000
   * digests under long version keys was ~10 MiB of the worker's heap at 10,000 skills).
   */
  const stored = (
    skillRealDir: string,
    relPath: string,
    dev: number,
    ino: number | null,
    version: {
      readonly size: number;
      readonly mtimeMs: number | null;
      readonly ctimeMs?: number | null;
    },
  ): FileDigest | null => {
    if (persistent === null) return null;
    const found = persistent.lookupDigest(skillRealDir, relPath, {
      dev,
      ino,
      size: version.size,
      mtimeMs: version.mtimeMs,
      ctimeMs: version.ctimeMs ?? null,
    });
    return found == null ? null : Object.freeze({ digest: found.digest, size: found.size });
  };
  const inFlight = new Map<string, Promise<Hashed>>();
  /** The miss path: the only writer of either cache. */
  const readAndHash = async (skillRealDir: string, listed: SkillFile): Promise<Hashed> => {
    // Synchronous resolve and hash: a cold listing does this for every file, and each
    // asynchronous call cost more than the work it waited for (issue 13). The one await
    // left is the descriptor-location check, which the locator batches across files.
    const file = resolveSkillFileSync(skillRealDir, listed.path);
    resolved++;
    // The version the gate saw: the only key a digest of these bytes is stored under.
    const key = versionKey(skillRealDir, listed.path, file);
    // The listed version is the one the gate saw (the usual case).
    const isGateVersion = listed.dev !== undefined && listed.ino !== undefined &&
      key === versionKey(skillRealDir, listed.path, listed);
    const known = recall(key) ?? stored(skillRealDir, listed.path, file.dev, file.ino, file);
    if (known != null) return { found: known, isListed: isGateVersion };
    // A moment without a free descriptor (a low `ulimit -n`, a cold build's other readers, the
    // page hashed ahead) is waited out, not taken for an unreadable file whose skill the page
    // then leaves out with no refresh to bring it back (s11-hG: 113 of 1,100 skills under
    // `ulimit -n 256` at load ~20). The open is the gate's own, made again from the start.
    const result: FileDigest = Object.freeze(
      await retryingOnDescriptorShortage(() => sha256OfFile(file)),
    );
    hashed++;
    // A file written while it was read may hash bytes of neither version: cache only a
    // read whose length matches the size the key was taken at.
    if (result.size !== file.size) return { found: result, isListed: false };
    // Kept in memory only where the index cache does not keep it (none, full), and never for a
    // racy version (review r5): Deno reports ctime in whole seconds and mtime can be put back,
    // so an in-place edit in the same second keeps every field of the version, and a digest
    // kept for it would answer the earlier bytes' digest for the new ones from then on.
    // Not held anywhere (racy): not "the digest held for the listed version" either, so no
    // skill entry is memoized from it (`entries.ts`).
    let isHeld = persistent?.rememberDigest(skillRealDir, listed.path, file, result) === true;
    if (!isHeld && isSettled(file, now())) {
      keep(key, result);
      isHeld = true;
    }
    return { found: result, isListed: isGateVersion && isHeld };
  };
  /** Stores what another hasher's gate read (see `hashElsewhere`): the same rule as `readAndHash`. */
  const adopt = (skillRealDir: string, listed: SkillFile, seen: DigestSeen): Hashed => {
    const key = versionKey(skillRealDir, listed.path, seen);
    const isGateVersion = key === versionKey(skillRealDir, listed.path, listed);
    const result: FileDigest = Object.freeze({ digest: seen.digest, size: seen.bytes });
    hashedElsewhere++;
    if (seen.bytes !== seen.size) return { found: result, isListed: false };
    const version = {
      dev: seen.dev,
      ino: seen.ino,
      size: seen.size,
      mtimeMs: seen.mtimeMs,
      ctimeMs: seen.ctimeMs,
    };
    // The index cache judges a version racy by its own clock when asked to store it; the
    // isolate read it earlier (the reply waits for its batch and for the worker's build), so a
    // version racy at the read is judged here, at the read (review r4), and kept in memory only.
    // A version racy at the read is held nowhere, as in `readAndHash` (review r5): not the
    // digest held for the listed version either, so no skill entry is memoized from it.
    const isSettledAtRead = isSettled(version, seen.readAtMs);
    let isHeld = isSettledAtRead &&
      persistent?.rememberDigest(skillRealDir, listed.path, version, result) === true;
    if (!isHeld && isSettledAtRead) {
      keep(key, result);
      isHeld = true;
    }
    return { found: result, isListed: isGateVersion && isHeld };
  };
  /** The digest held for exactly the listed version (memory, then the index cache), or null. */
  const heldListed = (skillRealDir: string, listed: SkillFile): FileDigest | null => {
    if (listed.dev === undefined || listed.ino === undefined) return null;
    // One key per call: a warm listing makes 40,000 of these at 10,000 skills (issue 13).
    const key = versionKey(skillRealDir, listed.path, listed);
    return recall(key) ?? stored(skillRealDir, listed.path, listed.dev, listed.ino, listed);
  };
  const digestListed = async (skillRealDir: string, listed: SkillFile): Promise<Hashed> => {
    if (listed.dev === undefined || listed.ino === undefined) {
      const hashed = await readAndHash(skillRealDir, listed);
      return { found: hashed.found, isListed: false };
    }
    const known = heldListed(skillRealDir, listed);
    if (known != null) return { found: known, isListed: true };
    const key = versionKey(skillRealDir, listed.path, listed);
    // A file already being hashed (the page ahead, or a concurrent request) is hashed once.
    const pending = inFlight.get(key);
    if (pending !== undefined) return await pending;
    const started = readAndHash(skillRealDir, listed);
    inFlight.set(key, started);
    try {
      return await started;
    } finally {
      inFlight.delete(key);
    }
  };
  return {
    async digest(skillRealDir, listed) {
      return (await digestListed(skillRealDir, listed)).found;
    },
    digestListed,
    heldListed,
    holds(skillRealDir, listed) {
      if (listed.dev === undefined || listed.ino === undefined) return false;
      return entries.has(versionKey(skillRealDir, listed.path, listed));
    },
    listedDigest(skillRealDir, listed) {
      if (listed.dev === undefined || listed.ino === undefined) return null;
      return entries.get(versionKey(skillRealDir, listed.path, listed)) ??
        stored(skillRealDir, listed.path, listed.dev, listed.ino, listed);
    },
    isUnhashed(skillRealDir, listed) {
      if (listed.dev === undefined || listed.ino === undefined) return false;
      const key = versionKey(skillRealDir, listed.path, listed);
      return !entries.has(key) && !inFlight.has(key) &&
        stored(skillRealDir, listed.path, listed.dev, listed.ino, listed) === null;
    },
    hashElsewhere(skillRealDir, listed, seen) {
      if (!this.isUnhashed(skillRealDir, listed)) return false;
      const key = versionKey(skillRealDir, listed.path, listed);
      const started = seen.then((found) =>
        found === null ? readAndHash(skillRealDir, listed) : adopt(skillRealDir, listed, found)
      );
      inFlight.set(key, started);
      // Settled here, so a file nobody asks for is no unhandled rejection (a lookup awaiting
      // it still gets the refusal and reports it).
      started.then(() => {}, () => {}).finally(() => {
        if (inFlight.get(key) === started) inFlight.delete(key);
      });
      return true;
    },
    storeFromElsewhere(skillRealDir, listed, seen) {
      if (!this.isUnhashed(skillRealDir, listed)) return false;
      adopt(skillRealDir, listed, seen);
      return true;
    },
    get hashedElsewhere() {
      return hashedElsewhere;
    },
    get size() {
      return entries.size;
    },
    get hashed() {
      return hashed;
    },
    get resolved() {
      return resolved;
    },
  };
}

/** A digest, and whether it is the one held for exactly the listed version. */
interface Hashed {
  readonly found: FileDigest;
  readonly isListed: boolean;
}

/**
 * Whether a version is old enough to name its bytes: both times known and the
 * change time at least `RACY_WINDOW_MS` ago (the index cache's rule). Deno
 * gives the change time in whole seconds, so an edit within the same second
 * keeps it; past the window, any later edit lands in a later second.
 */
function isSettled(
  version: { readonly mtimeMs: number | null; readonly ctimeMs: number | null },
  nowMs: number,
): boolean {
  return version.mtimeMs !== null && version.ctimeMs !== null &&
    Math.abs(nowMs - version.ctimeMs) >= RACY_WINDOW_MS;
}

/** The cache key of one version of one file of one skill. */
function versionKey(
  skillRealDir: string,
  relPath: string,
  version: {
    readonly dev?: number;
    readonly ino?: number | null;
    readonly size: number;
    readonly mtimeMs: number | null;
    readonly ctimeMs?: number | null;
  },
): string {
  // NUL cannot occur in a path, so the fields cannot run into each other. The change time is
  // part of the version (review r1): an in-place edit that keeps size and mtime (which owners
  // can set back) changes it, so the digest of the earlier bytes is not answered for it.
  return `${skillRealDir}\0${relPath}\0${version.dev}\0${version.ino}\0${version.size}\0` +
    `${version.mtimeMs}\0${version.ctimeMs ?? null}`;
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
  await loadHasher();
  return sha256DigestSync(bytes);
}

/**
 * The SHA-256 digest of a file the gate resolved, read through the verified
 * open in chunks (`readWholeInChunks`): many files hashed at once hold no
 * more than one chunk buffer (review r4: read whole, 64 sparse 16 MB files
 * held 1 GiB at once).
 *
 * @param file A file issued by the path gate.
 * @returns The digest (`sha256:` and 64 lowercase hexadecimal characters)
 *   and the bytes hashed (the size of the open handle, or fewer if it shrank).
 * @throws {FileTooLargeError} Over the extension's 16 MiB.
 * @throws {PathRefusedError} As `readWhole`.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: SEP-2640, "Integrity and Verification" (SHA-256 over the raw bytes).
 */
export async function sha256OfFile(file: ResolvedFile): Promise<FileDigest> {
  if (createHash === null) await loadHasher();
  const hash = (createHash as NonNullable<typeof createHash>)("sha256");
  const size = await readWholeInChunks(file, EXTENSION_MAX_BYTES, (chunk) => hash.update(chunk));
  return { digest: `sha256:${hash.digest("hex")}`, size };
}

/**
 * SHA-256 of a listed skill file read by the gate's located open
 * (`readLocatedInChunks`: the handle's own version, checked where the kernel
 * places it, no resolve walk before; issue 13), in chunks, never over the
 * extension's per-skill byte limit.
 *
 * @param skillRealDir The skill's real folder (`Skill.realDir`).
 * @param relPath The file's path in the skill, as the catalog lists it.
 * @returns The digest of the bytes read, and the open handle's version with the count read.
 * @throws {PathRefusedError} When the gate refuses the file (see `readLocatedInChunks`).
 * @throws {FileTooLargeError} When the file is over 16 MiB.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: SEP-2640, "Integrity and Verification".
 */
export async function sha256OfLocatedFile(
  skillRealDir: string,
  relPath: string,
): Promise<{ readonly digest: string; readonly read: LocatedRead }> {
  if (createHash === null) await loadHasher();
  const hash = (createHash as NonNullable<typeof createHash>)("sha256");
  const read = await readLocatedInChunks(
    skillRealDir,
    relPath,
    EXTENSION_MAX_BYTES,
    (chunk) => hash.update(chunk),
  );
  return { digest: `sha256:${hash.digest("hex")}`, read };
}

/**
 * `node:crypto`'s `createHash`, loaded on the first digest, not at start-up:
 * loading `node:crypto` costs the worker ~5-8 ms before `initialize` is
 * answered, which needs no digest (issue 13).
 */
let createHash: typeof import("node:crypto").createHash | null = null;

/**
 * Loads the hasher {@linkcode sha256DigestSync} uses (once; later calls resolve at once).
 *
 * @returns Resolves once digests can be computed synchronously.
 */
export async function loadHasher(): Promise<void> {
  createHash ??= (await import("node:crypto")).createHash;
}

/**
 * {@linkcode sha256Digest}, synchronously: `node:crypto` hashes a few KiB in
 * microseconds, where `crypto.subtle.digest` costs an asynchronous round
 * trip per file (40 us a file on a loaded machine; issue 13).
 *
 * @param bytes The raw bytes.
 * @returns `sha256:` followed by 64 lowercase hexadecimal characters.
 * @throws {Error} When {@linkcode loadHasher} has not completed yet.
 *
 * Source: SEP-2640, "Integrity and Verification".
 */
export function sha256DigestSync(bytes: Uint8Array): string {
  if (createHash === null) throw new Error("sha256DigestSync() before loadHasher() completed");
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
