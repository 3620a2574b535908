/**
 * The persistent index cache (issue 13): per SKILL.md version, what parsing
 * and validating it produced (frontmatter, key lines, problems), so a
 * restart parses only what changed; and per file version, its SHA-256 digest
 * (`skills/list`), so a restart hashes only what changed. It is an optimisation, never a trust
 * boundary:
 *
 * - an entry is used only while the file's identity matches exactly: device,
 *   inode, size, modification time AND change time (owners cannot set the
 *   change time, so an in-place edit that restores size and mtime still
 *   misses), plus the skillgate version. The bytes themselves are still read
 *   through the gated open every time (the body is served from them), so the
 *   cache never decides what is served from where;
 * - a version whose change time is within {@linkcode RACY_WINDOW_MS} of the
 *   moment it was read is not stored (an edit in the same clock tick could
 *   keep every field);
 * - a corrupt, foreign or unwritable cache file is ignored with one warning,
 *   and rebuilt on the next write;
 * - writes are atomic (a uniquely named temporary file, then rename), so
 *   several skillgate processes can share one folder: the last writer wins
 *   and every reader sees a whole file.
 *
 * Two files per set of roots (so processes serving different roots do not
 * evict each other), each read only when first needed: the parses
 * (`_index_parses.ts`, JSON lines, read by the first build and dropped from
 * memory once it is written back) and the digests (`_index_digests.ts`, one
 * binary table held as a single buffer, read by the first `skills/list`).
 * Only the worker opens them; its write permission is exactly the cache
 * folder (`worker_permissions.ts`).
 *
 * @module
 */

import { isDescriptorShortage, NO_DESCRIPTOR_FREE } from "../files/descriptor_shortage.ts";
import { indexCacheKeyOf } from "../config/index_cache_key.ts";
import { VERSION } from "../version.ts";
import { type DigestRecord, DigestTable, writeDigestFile } from "./_index_digests.ts";
import { readIndexFile, removeStaleIndexFile, replaceIndexFile } from "./_index_file.ts";
import {
  type ParseEntries,
  readParseFile,
  type StoredParse,
  writeParseFile,
} from "./_index_parses.ts";
import type { Problem } from "./problem.ts";

/** Change times this close to the read (ms) are not cached: the same tick could hide an edit. */
export const RACY_WINDOW_MS = 2_000;
/** Entries kept at most per file; more are not stored. */
export const MAX_INDEX_ENTRIES = 200_000;

/** The identity of one version of a file. */
export interface FileVersion {
  readonly dev: number;
  readonly ino: number | null;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
}

/** What parsing and validating one SKILL.md version produced. */
export interface ParsedSkillMd {
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Frontmatter key -> line number, as `parseFrontmatter` gives. */
  readonly keyLines: readonly (readonly [string, number])[];
  /** The validation findings (warnings only: a version with errors is not served). */
  readonly findings: readonly Problem[];
}

/** A file's digest as `skills/list` serves it. */
export interface StoredDigest {
  /** `sha256:` and 64 lowercase hexadecimal characters. */
  readonly digest: string;
  /** Bytes hashed. */
  readonly size: number;
}

/** The index cache of one process. */
export interface IndexCache {
  /**
   * The digest stored for this exact version of a skill's file, or null.
   *
   * @param skillRealDir The skill's real folder.
   * @param relPath The file's path in the skill.
   * @param version Its identity (as the listing or the gate saw it).
   */
  lookupDigest(skillRealDir: string, relPath: string, version: FileVersion): StoredDigest | null;
  /**
   * Stores a digest computed from bytes read through the gate at `version`
   * (racy: skipped).
   *
   * @returns True when {@linkcode IndexCache.lookupDigest} answers it from now
   *   on in this process (also when the folder turns out unwritable: it stays
   *   in memory then); false when it was skipped (racy or incomplete version,
   *   a malformed digest, no cache folder, the entry bound reached), so a
   *   caller that wants it again must keep it itself.
   */
  rememberDigest(
    skillRealDir: string,
    relPath: string,
    version: FileVersion,
    digest: StoredDigest,
  ): boolean;
  /**
   * The parse stored under `key` when it was stored for this exact version.
   *
   * @param key Everything the parse depends on besides the bytes (the skill's
   *   real folder, SKILL.md's lexical path, the folder name it is validated against).
   * @param version The file's identity as the gated open saw it.
   * @returns The stored parse, or null.
   */
  lookup(key: string, version: FileVersion): ParsedSkillMd | null;
  /**
   * Whether a parse of any version is stored under `key`. When false,
   * {@linkcode IndexCache.lookup} misses for every version, so a caller need
   * not find the file's version first (issue 13: a cold build spares one
   * `lstat` of each SKILL.md). Counts neither a hit nor a miss.
   *
   * @param key As for {@linkcode IndexCache.lookup}.
   * @returns True when an entry exists under `key`.
   */
  holdsParse(key: string): boolean;
  /**
   * Whether the cache holds any parse at all (reads the parse file now, which
   * the first lookup would read anyway): true means a warm build is coming
   * (stdio primes stdin then, s10-h9); false means a cold build, every
   * SKILL.md parsed anew (the worker starts the digest isolate before
   * discovery then, s10-h8). Counts neither a hit nor a miss.
   *
   * @returns False with no cache folder, no parse file, or an empty one.
   */
  holdsAnyParse(): boolean;
  /** Stores a parse under `key` (skipped when the version is racy or incomplete). */
  remember(key: string, version: FileVersion, parsed: ParsedSkillMd): void;
  /**
   * Writes the entries used or added since opening, atomically, when anything
   * changed. Never throws: a failure is one warning.
   */
  flush(): void;
  /** Hits and misses so far, for tests and the benchmark. */
  readonly stats: { readonly hits: number; readonly misses: number };
}

/** The warnings already given in this process (one per cause). */
const warned = new Set<string>();

/** How long after the last new digest the cache is written, in ms. */
const DIGEST_FLUSH_DELAY_MS = 1_000;

/**
 * Opens the index cache for a set of roots. Nothing is read until a lookup
 * needs it: a large catalog's early first answer (issue 13) waits for neither file.
 *
 * @param dir The cache folder (absolute), or null for none (every lookup misses).
 * @param options `rootsKey`: the roots' real paths joined (names the files);
 *   `warn`: where the one warning goes (default stderr); `now`: the clock in ms.
 * @returns The cache. Never throws.
 *
 * Requires `--allow-read` and `--allow-write` on `dir` (the worker's set has exactly that).
 */
export function openIndexCache(
  dir: string | null,
  options: { rootsKey: string; warn?: (line: string) => void; now?: () => number },
): IndexCache {
  const warn = (cause: string, line: string) => {
    if (warned.has(cause)) return;
    warned.add(cause);
    (options.warn ?? ((text) => console.error(text)))(`skillgate: ${line}`);
  };
  const now = options.now ?? (() => Date.now());
  const base = dir === null ? null : `${dir}/${indexCacheKeyOf(options.rootsKey.split("\0"))}`;
  const parsePath = base === null ? null : `${base}.parses`;
  const digestPath = base === null ? null : `${base}.digests`;
  const isStorable = (version: FileVersion): boolean =>
    base !== null && version.ctimeMs !== null && version.mtimeMs !== null &&
    Math.abs(now() - version.ctimeMs) >= RACY_WINDOW_MS;

  // Parses: the file's entries (read on first use), and those used or added since.
  let storedParses: ParseEntries | null = null;
  const parses = (): ParseEntries =>
    storedParses ??= parsePath === null ? new Map() : loadParses(parsePath, warn, () => {
      // A damaged entry is not used; the file is written again without it at the next flush.
      parsesChanged = true;
    });
  let keptParses = new Map<string, StoredParse>();
  let parsesChanged = false;
  // Digests: the file's table (read on the first digest lookup), and those added since.
  let table: DigestTable | null | undefined;
  const digests = (): DigestTable | null =>
    table === undefined
      ? (table = digestPath === null ? null : loadDigests(digestPath, warn))
      : table;
  const addedDigests = new Map<string, DigestRecord>();
  let digestsUnwritable = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last digest was added (`performance.now()` ms). */
  let lastDigestAtMs = 0;
  const armDigestFlush = (delayMs: number) => {
    const timer = setTimeout(() => {
      flushTimer = undefined;
      const quietMs = performance.now() - lastDigestAtMs;
      if (quietMs < DIGEST_FLUSH_DELAY_MS) armDigestFlush(DIGEST_FLUSH_DELAY_MS - quietMs);
      else writeDigests();
    }, delayMs);
    Deno.unrefTimer(timer as unknown as number);
    flushTimer = timer;
  };
  let hits = 0;
  let misses = 0;

  const writeParses = () => {
    if (parsePath === null) return;
    // Parses not used this time (a skill removed) are dropped.
    const isUnchanged = !parsesChanged && keptParses.size === parses().size;
    if (!isUnchanged) {
      parsesChanged = false;
      if (write(parsePath, writeParseFile(VERSION, keptParses)) && base !== null) {
        // The one-file JSON format of earlier versions, now never read.
        removeStaleIndexFile(`${base}.json`);
      }
    }
    // Only a build looks parses up (the first one, and a later one with this cache): the
    // next lookup reads the file again, so they need not stay in memory meanwhile.
    storedParses = null;
    keptParses = new Map();
  };
  const writeDigests = () => {
    if (digestPath === null || addedDigests.size === 0 || digestsUnwritable) return;
    const held = digests();
    const replaced = new Set<number>();
    if (held !== null) {
      for (const key of addedDigests.keys()) {
        const index = held.indexOf(key);
        if (index >= 0) replaced.add(index);
      }
    }
    const bytes = writeDigestFile(
      VERSION,
      held,
      replaced,
      [...addedDigests.values()],
      MAX_INDEX_ENTRIES,
    );
    // Not written: the added digests stay in memory (lookups still find them, as
    // rememberDigest promised) and the folder is not tried again in this process.
    if (!write(digestPath, bytes)) {
      digestsUnwritable = true;
      return;
    }
    addedDigests.clear();
    // What was written is what a lookup sees from now on: one buffer again.
    const reread = DigestTable.read(bytes, VERSION);
    table = reread.kind === "table" ? reread.table : null;
  };
  const write = (path: string, bytes: Uint8Array): boolean => {
    try {
      replaceIndexFile(path, bytes);
      return true;
    } catch (error) {
      // No descriptor free is this process's limit, not the folder's permissions (s15).
      warn(
        "unwritable",
        isDescriptorShortage(error)
          ? `the index cache cannot be written (${NO_DESCRIPTOR_FREE})`
          : `the index cache cannot be written (${
            error instanceof Error ? error.name : "error"
          }); starting without it next time too. Fix the folder's permissions or pass ` +
            "--no-index-cache",
      );
      return false;
    }
  };

  const cache: IndexCache = {
    lookup(key, version) {
      const entry = keptParses.get(key) ?? parses().get(key);
      if (entry !== undefined && sameVersion(entry.v, version)) {
        keptParses.set(key, entry);
        hits++;
        return entry.p;
      }
      misses++;
      return null;
    },
    holdsParse(key) {
      return keptParses.has(key) || parses().has(key);
    },
    holdsAnyParse() {
      return keptParses.size > 0 || parses().size > 0;
    },
    remember(key, version, parsed) {
      if (!isStorable(version) || keptParses.size >= MAX_INDEX_ENTRIES) return;
      keptParses.set(key, { v: versionTuple(version), p: parsed });
      parsesChanged = true;
    },
    lookupDigest(skillRealDir, relPath, version) {
      const key = digestKey(skillRealDir, relPath);
      const added = addedDigests.get(key);
      if (added !== undefined) {
        return sameVersion(versionTuple(added.version), version) ? added.digest : null;
      }
      return digests()?.lookup(key, version) ?? null;
    },
    rememberDigest(skillRealDir, relPath, version, digest) {
      if (!isStorable(version) || addedDigests.size >= MAX_INDEX_ENTRIES) return false;
      if (!/^sha256:[0-9a-f]{64}$/.test(digest.digest) || !Number.isSafeInteger(digest.size)) {
        return false;
      }
      const key = digestKey(skillRealDir, relPath);
      addedDigests.set(key, { key, version: { ...version }, digest: { ...digest } });
      // Digests arrive while a listing pages through: write once they stop for a while. One
      // timer, pushed back when it fires early, not one per digest (issue 13: 40,000 digests at
      // 10,000 skills, each re-arming a timer).
      lastDigestAtMs = performance.now();
      if (flushTimer === undefined) armDigestFlush(DIGEST_FLUSH_DELAY_MS);
      return true;
    },
    flush() {
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      flushTimer = undefined;
      // A build that looked nothing up (no folder, or nothing found) leaves the parse file alone.
      if (storedParses !== null || parsesChanged) writeParses();
      writeDigests();
    },
    get stats() {
      return { hits, misses };
    },
  };
  return cache;
}

function digestKey(skillRealDir: string, relPath: string): string {
  return `${skillRealDir}\0${relPath}`;
}

function versionTuple(version: FileVersion): (number | null)[] {
  return [version.dev, version.ino, version.size, version.mtimeMs, version.ctimeMs];
}

function sameVersion(stored: readonly (number | null)[], version: FileVersion): boolean {
  const now = versionTuple(version);
  // A version without a change time or mtime is never a hit: it could hide an edit.
  return now[3] !== null && now[4] !== null && stored.length === now.length &&
    stored.every((value, index) => value === now[index]);
}

const CORRUPT = "the index cache is not skillgate's or is damaged; rebuilding it";

/**
 * Reads the parse file; anything but a whole, current-format file gives no
 * entries. An entry found damaged when parsed (`readParseFile`) is warned
 * about as a corrupt cache and `onDamaged` is told.
 */
function loadParses(
  path: string,
  warn: (cause: string, line: string) => void,
  onDamaged: () => void,
): ParseEntries {
  const bytes = readCacheFile(path, warn);
  if (bytes === null) return new Map();
  const loaded = readParseFile(bytes, VERSION, () => {
    warn("corrupt", CORRUPT);
    onDamaged();
  });
  if (loaded.kind === "entries") return loaded.entries;
  if (loaded.kind === "corrupt") warn("corrupt", CORRUPT);
  return new Map();
}

/** Reads the digest file; anything but a whole, current-format file gives no table. */
function loadDigests(
  path: string,
  warn: (cause: string, line: string) => void,
): DigestTable | null {
  const bytes = readCacheFile(path, warn);
  if (bytes === null) return null;
  const loaded = DigestTable.read(bytes, VERSION);
  if (loaded.kind === "table") return loaded.table;
  if (loaded.kind === "corrupt") warn("corrupt", CORRUPT);
  return null;
}

function readCacheFile(
  path: string,
  warn: (cause: string, line: string) => void,
): Uint8Array | null {
  const read = readIndexFile(path);
  if (read === "foreign") warn("foreign", "an index cache file is not a regular file; ignoring it");
  if (read === "unreadable") {
    warn("unreadable", "the index cache cannot be read; starting without it");
  }
  return typeof read === "string" ? null : read;
}
