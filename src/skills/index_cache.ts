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
 * - a corrupt, foreign or unwritable cache is ignored with one warning, and
 *   rebuilt on the next write;
 * - writes are atomic (a uniquely named temporary file, then rename), so
 *   several skillgate processes can share one folder: the last writer wins
 *   and every reader sees a whole file.
 *
 * Only the worker opens it; its write permission is exactly the cache folder
 * (`worker_permissions.ts`). One file per set of roots, so processes serving
 * different roots do not evict each other.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import type { Problem } from "./problem.ts";

/** A file format marker, so a foreign JSON file is never taken for a cache. */
const FORMAT = "skillgate-index-1";
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
  /** Stores a digest computed from bytes read through the gate at `version` (racy: skipped). */
  rememberDigest(
    skillRealDir: string,
    relPath: string,
    version: FileVersion,
    digest: StoredDigest,
  ): void;
  /**
   * The parse stored under `key` when it was stored for this exact version.
   *
   * @param key Everything the parse depends on besides the bytes (the skill's
   *   real folder, SKILL.md's lexical path, the folder name it is validated against).
   * @param version The file's identity as the gated open saw it.
   * @returns The stored parse, or null.
   */
  lookup(key: string, version: FileVersion): ParsedSkillMd | null;
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

/**
 * Opens the index cache for a set of roots.
 *
 * @param dir The cache folder (absolute), or null for none (every lookup misses).
 * @param options `rootsKey`: the roots' real paths joined (names the file);
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
  const path = dir === null ? null : `${dir}/${fileNameOf(options.rootsKey)}`;
  // Read on first use, not at open: a large cache file is parsed after discovery, so a large
  // catalog's early first answer (issue 13) does not wait for it.
  let loaded: Map<string, StoredEntry> | null = null;
  const stored = (): Map<string, StoredEntry> =>
    loaded ??= path === null ? new Map<string, StoredEntry>() : load(path, warn);
  const kept = new Map<string, StoredEntry>();
  let changed = false;
  let hits = 0;
  let misses = 0;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  const find = (key: string, version: FileVersion): StoredEntry | null => {
    const entry = kept.get(key) ?? stored().get(key);
    if (entry === undefined || !sameVersion(entry.v, version)) return null;
    kept.set(key, entry);
    return entry;
  };
  const store = (key: string, version: FileVersion, payload: StoredEntry["p"]): boolean => {
    if (path === null || version.ctimeMs === null || version.mtimeMs === null) return false;
    if (Math.abs(now() - version.ctimeMs) < RACY_WINDOW_MS) return false;
    if (kept.size >= MAX_INDEX_ENTRIES) return false;
    kept.set(key, { v: versionTuple(version), p: payload });
    changed = true;
    return true;
  };
  const cache: IndexCache = {
    lookup(key, version) {
      const entry = find(key, version);
      if (entry !== null && !isDigestKey(key)) {
        hits++;
        return entry.p as ParsedSkillMd;
      }
      misses++;
      return null;
    },
    remember(key, version, parsed) {
      if (!isDigestKey(key)) store(key, version, parsed);
    },
    lookupDigest(skillRealDir, relPath, version) {
      const entry = find(digestKey(skillRealDir, relPath), version);
      return entry === null ? null : entry.p as StoredDigest;
    },
    rememberDigest(skillRealDir, relPath, version, digest) {
      if (!store(digestKey(skillRealDir, relPath), version, digest)) return;
      // Digests arrive while a listing pages through: write once they stop for a while.
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      const timer = setTimeout(() => {
        flushTimer = undefined;
        cache.flush();
      }, DIGEST_FLUSH_DELAY_MS);
      Deno.unrefTimer(timer as unknown as number);
      flushTimer = timer;
    },
    flush() {
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      flushTimer = undefined;
      if (path === null || dir === null) return;
      // Parses not used this time (a skill removed) are dropped; digests are kept until
      // replaced (they are looked up only when a listing asks).
      for (const [key, entry] of stored()) {
        if (isDigestKey(key) && !kept.has(key) && kept.size < MAX_INDEX_ENTRIES) {
          kept.set(key, entry);
        }
      }
      const isUnchanged = !changed && kept.size === stored().size;
      // From now on `kept` holds every entry a lookup can use: the file's other parses (skills
      // gone) need not stay in memory.
      loaded = kept;
      if (isUnchanged) return;
      changed = false;
      const body = JSON.stringify({ format: FORMAT, version: VERSION, entries: [...kept] });
      const temporary = `${path}.${crypto.randomUUID()}.tmp`;
      try {
        Deno.writeTextFileSync(temporary, body, { mode: 0o600, createNew: true });
        Deno.renameSync(temporary, path);
      } catch (error) {
        try {
          Deno.removeSync(temporary);
        } catch {
          // Nothing was written, or it is gone already.
        }
        warn(
          "unwritable",
          `the index cache cannot be written (${error instanceof Error ? error.name : "error"}); ` +
            "starting without it next time too. Fix the folder's permissions or pass --no-index-cache",
        );
      }
    },
    get stats() {
      return { hits, misses };
    },
  };
  return cache;
}

/** How long after the last new digest the cache is written, in ms. */
const DIGEST_FLUSH_DELAY_MS = 1_000;

function digestKey(skillRealDir: string, relPath: string): string {
  return `d\0${skillRealDir}\0${relPath}`;
}

function isDigestKey(key: string): boolean {
  return key.startsWith("d\0");
}

/** One stored entry: the version tuple and the parse. */
interface StoredEntry {
  readonly v: readonly (number | null)[];
  readonly p: ParsedSkillMd | StoredDigest;
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

/** The cache file for a set of roots: a hash of their real paths, so names stay short. */
function fileNameOf(rootsKey: string): string {
  // FNV-1a, 2 x 32 bits: collisions only cost a rebuild (entries are keyed by full path).
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < rootsKey.length; i++) {
    const code = rootsKey.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x811c9dc5) >>> 0;
  }
  return `skills-${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}.json`;
}

/** Reads a cache file; anything but a whole, current-format file is ignored. */
function load(path: string, warn: (cause: string, line: string) => void): Map<string, StoredEntry> {
  let text: string;
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile) {
      warn("foreign", "the index cache file is not a regular file; ignoring it");
      return new Map();
    }
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      warn("unreadable", "the index cache cannot be read; starting without it");
    }
    return new Map();
  }
  try {
    const parsed = JSON.parse(text) as { format?: unknown; version?: unknown; entries?: unknown };
    if (parsed?.format !== FORMAT || !Array.isArray(parsed.entries)) {
      warn("corrupt", "the index cache is not skillgate's or is damaged; rebuilding it");
      return new Map();
    }
    // Another skillgate version's entries may parse differently: start afresh, silently.
    if (parsed.version !== VERSION) return new Map();
    const entries = new Map<string, StoredEntry>();
    for (const item of parsed.entries) {
      if (!isEntry(item)) {
        warn("corrupt", "the index cache is not skillgate's or is damaged; rebuilding it");
        return new Map();
      }
      entries.set(item[0], item[1]);
    }
    return entries;
  } catch {
    warn("corrupt", "the index cache is not skillgate's or is damaged; rebuilding it");
    return new Map();
  }
}

function isEntry(item: unknown): item is [string, StoredEntry] {
  if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== "string") return false;
  const entry = item[1] as Partial<StoredEntry> | null;
  if (typeof entry !== "object" || entry === null || !Array.isArray(entry.v)) return false;
  if (entry.v.length !== 5 || !entry.v.every((v) => v === null || typeof v === "number")) {
    return false;
  }
  if (isDigestKey(item[0])) {
    const digest = entry.p as Partial<StoredDigest> | undefined;
    return typeof digest === "object" && digest !== null &&
      typeof digest.digest === "string" && /^sha256:[0-9a-f]{64}$/.test(digest.digest) &&
      Number.isSafeInteger(digest.size);
  }
  const parsed = entry.p as Partial<ParsedSkillMd> | undefined;
  return typeof parsed === "object" && parsed !== null &&
    typeof parsed.frontmatter === "object" && parsed.frontmatter !== null &&
    !Array.isArray(parsed.frontmatter) && Array.isArray(parsed.keyLines) &&
    Array.isArray(parsed.findings);
}
