/**
 * One publisher source, end to end: ask for its `index.json` (conditionally:
 * `If-None-Match` / `If-Modified-Since`), take the index's SHA-256 as the
 * revision, and when that revision is not the one cached, download every
 * skill's artifact, check it against its digest before a byte of it is
 * written, unpack archives with every rule and cap, verify the files
 * shape's per-file and skill-level digests, compare with the lock, and swap
 * the whole revision in. Any failure leaves the last good copy exactly as it
 * was. Every URL (index, artifact, each redirect hop) must be on an allowed
 * origin. Runs in the fetcher worker.
 *
 * A publisher serves only its current index, so a lock pins the index
 * digest: with a lock the cached locked revision is served and a newer
 * index is reported as an update; a machine without that cached revision
 * can fetch it only while the publisher still serves the same index.
 *
 * Rule source: Agent Skills Discovery via Well-Known URIs v0.2.0 ("Client
 * Implementation", "Integrity and Verification", "Package Distribution").
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { FetchContext, FetchOutcome, FetchRequest } from "./fetch_source.ts";
import { type GetAnswer, getFollowingRedirects } from "./http_get.ts";
import { diffSkills, groupSkills, type SkillChanges, type SkillDigests } from "./lock_file.ts";
import {
  type IndexEntry,
  parseIndex,
  type PublisherIndex,
  sha256Of,
  skillLevelDigest,
} from "./publisher_index.ts";
import { type PublisherSource, refusalOfPublisherUrl } from "./publisher_spec.ts";
import type { RemoteCaps } from "./remote_caps.ts";
import { RemoteError, type RemoteFailure } from "./remote_error.ts";
import {
  discardExtraction,
  FILE_MODE,
  FOLDER_MODE,
  freshExtractionDir,
  readState,
  servedDir,
  sourceKey,
  sourceLeaf,
  type SourceState,
  swapIn,
  writeState,
} from "./sources_cache.ts";
import { type ExtractedFile, extractTarball } from "./tar_extract.ts";
import { extractZip } from "./zip_extract.ts";

/** Bytes of `index.json` read at most. */
export const MAX_INDEX_BYTES = 4 * 1024 * 1024;

const NO_CHANGES: SkillChanges = Object.freeze({ added: [], removed: [], changed: [] });

/** The index as answered now. */
interface IndexAnswer {
  /** 64 hex of the index bytes (the revision). */
  readonly revision: string;
  /** Null after a 304 (the body was not sent). */
  readonly bytes: Uint8Array | null;
  readonly etag: string | null;
  readonly lastModified: string | null;
}

/**
 * Fetches one publisher source into the cache. Requires `--allow-net` for
 * the allowed publisher origins and `--allow-read`/`--allow-write` on the
 * cache folder.
 *
 * @param request The source, its lock entry, and what to do.
 * @param context Cache folder, caps, allowed origins (`publisherOrigins`).
 * @returns The outcome; never throws for a remote failure (it is in `failure`).
 * @throws Only on a programming error or a cache that cannot be written.
 */
export async function fetchPublisher(
  request: FetchRequest & { readonly source: PublisherSource },
  context: FetchContext,
): Promise<FetchOutcome> {
  const { source, locked } = request;
  const key = await sourceKey(source);
  const state = await readState(context.cacheDir, key);
  const usable = state !== null && state.spec === source.spec ? state : null;
  const signal = AbortSignal.timeout(context.caps.fetchTimeoutMs);
  const origins = context.publisherOrigins ?? [];
  const get = (url: string, maxBytes: number, validators: boolean, accept: string) =>
    getFollowingRedirects(new URL(url), {
      refuse: (hop) => refusalOfPublisherUrl(hop, origins),
      token: null,
      accept,
      ifNoneMatch: validators ? usable?.etag ?? null : null,
      ifModifiedSince: validators ? usable?.lastModified ?? null : null,
      maxBytes,
      signal,
    });
  try {
    const pinned = locked !== null && !request.update ? locked.commit : null;
    const expected = pinned !== null ? locked!.skills : null;
    const cachedIsGood = (revision: string) =>
      usable !== null && usable.commit === revision && request.refetch !== true &&
      (expected === null || sameDigests(expected, usable.skills));
    // Pinned, cached, nothing to check: no request at all (as a pinned commit).
    if (pinned !== null && !request.checkForUpdate && cachedIsGood(pinned)) {
      return unchanged(source, usable!, null, context, key);
    }
    const askIndex = async (validators: boolean): Promise<IndexAnswer> => {
      const answer = await get(source.indexUrl, MAX_INDEX_BYTES, validators, "application/json");
      if (answer.status === 304 && validators && usable?.etagCommit) {
        return {
          revision: usable.etagCommit,
          bytes: null,
          etag: answer.headers.get("etag") ?? usable.etag,
          lastModified: answer.headers.get("last-modified") ?? usable.lastModified ?? null,
        };
      }
      checkStatus(answer, source, "its index.json");
      return {
        revision: (await sha256Of(answer.body)).slice("sha256:".length),
        bytes: answer.body,
        etag: answer.headers.get("etag"),
        lastModified: answer.headers.get("last-modified"),
      };
    };
    let index = await askIndex(usable?.etagCommit != null && request.refetch !== true);
    const target = pinned ?? index.revision;
    const updateAvailable = pinned !== null && index.revision !== pinned ? index.revision : null;
    const validators = {
      etag: index.etag,
      etagCommit: index.revision,
      lastModified: index.lastModified,
    };
    if (cachedIsGood(target)) {
      return unchanged(source, { ...usable!, ...validators }, updateAvailable, context, key);
    }
    if (index.revision !== target) {
      throw new RemoteError(
        "lock-mismatch",
        `${source.spec}: the publisher's index is now sha256:${index.revision.slice(0, 12)}; ` +
          `the lock pins sha256:${target.slice(0, 12)}, which it no longer serves. Run ` +
          "skillgate sync --update to move the pin",
      );
    }
    if (index.bytes === null) {
      index = await askIndex(false);
      if (index.revision !== target) {
        throw new RemoteError("http", `${source.spec}: the index changed while it was read`);
      }
    }
    const parsed = parseIndex(index.bytes!, source.indexUrl, context.caps.maxMembers);
    const skills = await downloadAndSwap(
      source,
      parsed,
      {
        key,
        expected,
        previous: usable,
        state: {
          spec: source.spec,
          commit: target,
          // From the answer whose body is unpacked (a 304 may have been asked again in full).
          etag: index.etag,
          lastModified: index.lastModified,
          etagCommit: index.revision,
          ref: null,
          checkedAtMs: Date.now(),
          problems: parsed.problems,
          skills: {},
        },
      },
      context,
      get,
      signal,
    );
    const changes = diffSkills(usable?.skills ?? {}, skills);
    return {
      spec: source.spec,
      status: "fetched",
      commit: target,
      skills,
      changes,
      updateAvailable,
      failure: null,
    };
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    return {
      spec: source.spec,
      status: "failed",
      commit: usable?.commit ?? null,
      skills: usable?.skills ?? null,
      changes: NO_CHANGES,
      updateAvailable: null,
      failure: { reason: error.reason, message: error.message },
    };
  }
}

async function unchanged(
  source: PublisherSource,
  state: SourceState,
  updateAvailable: string | null,
  context: FetchContext,
  key: string,
): Promise<FetchOutcome> {
  const kept: SourceState = { ...state, checkedAtMs: Date.now() };
  await writeState(context.cacheDir, key, kept);
  return {
    spec: source.spec,
    status: "unchanged",
    commit: kept.commit,
    skills: kept.skills,
    changes: NO_CHANGES,
    updateAvailable,
    failure: null,
  };
}

type Get = (
  url: string,
  maxBytes: number,
  validators: boolean,
  accept: string,
) => Promise<GetAnswer>;

/** Downloads, verifies and unpacks every entry into a fresh folder, then swaps it in. */
async function downloadAndSwap(
  source: PublisherSource,
  index: PublisherIndex,
  target: {
    readonly key: string;
    readonly expected: Readonly<Record<string, SkillDigests>> | null;
    /** The state served before (its removed skills are pruned after the swap). */
    readonly previous: SourceState | null;
    readonly state: SourceState;
  },
  context: FetchContext,
  get: Get,
  signal: AbortSignal,
): Promise<Record<string, Record<string, string>>> {
  const dir = await freshExtractionDir(context.cacheDir, target.key);
  let skills: Record<string, Record<string, string>>;
  try {
    const root = join(dir, sourceLeaf(source));
    await Deno.mkdir(root, { mode: FOLDER_MODE });
    const budget = {
      unpackedBytes: context.caps.maxUnpackedBytes,
      members: context.caps.maxMembers,
    };
    const all = new Map<string, ExtractedFile>();
    for (const entry of index.entries) {
      if (signal.aborted) throw new RemoteError("timeout", "The fetch took too long");
      const skillDir = join(root, entry.name);
      await Deno.mkdir(skillDir, { mode: FOLDER_MODE });
      const files = await fetchEntry(entry, skillDir, {
        source,
        caps: context.caps,
        budget,
        get,
        signal,
      });
      for (const [path, file] of files) all.set(`${entry.name}/${path}`, file);
    }
    skills = groupSkills(all);
    if (target.expected !== null && !sameDigests(target.expected, skills)) {
      const changes = diffSkills(target.expected, skills);
      const named = [...changes.added, ...changes.removed, ...changes.changed].slice(0, 5);
      throw new RemoteError(
        "lock-mismatch",
        `${source.spec}: index sha256:${target.state.commit.slice(0, 12)} does not match the ` +
          `lock (skills differing: ${named.join(", ")}); the last good copy is kept`,
      );
    }
    await swapIn(context.cacheDir, target.key, dir, {
      ...target.state,
      checkedAtMs: Date.now(),
      skills,
    });
  } catch (error) {
    await discardExtraction(dir);
    throw error;
  }
  await pruneRemoved(source, context.cacheDir, target, skills);
  return skills;
}

/**
 * After a successful swap, removes from the revision kept for reads in
 * flight (the one served before) every skill the new index no longer
 * lists, so a removed skill is gone from the cache at once; that revision
 * itself goes at the next swap, as for a GitHub source.
 */
async function pruneRemoved(
  source: PublisherSource,
  cacheDir: string,
  target: {
    readonly key: string;
    readonly previous: SourceState | null;
    readonly state: SourceState;
  },
  skills: Readonly<Record<string, SkillDigests>>,
): Promise<void> {
  const previous = target.previous;
  if (previous === null || previous.commit === target.state.commit) return;
  const kept = new Set(Object.keys(skills).map((dir) => dir.split("/")[0]));
  const gone = new Set(
    Object.keys(previous.skills).map((dir) => dir.split("/")[0]!).filter((top) => !kept.has(top)),
  );
  for (const name of gone) {
    await Deno.remove(
      join(servedDir(cacheDir, target.key, previous.commit, source), name),
      { recursive: true },
    ).catch(() => {});
  }
}

interface EntryContext {
  readonly source: PublisherSource;
  readonly caps: RemoteCaps;
  /** What is left of the source's unpacked bytes and members. */
  readonly budget: { unpackedBytes: number; members: number };
  readonly get: Get;
  readonly signal: AbortSignal;
}

/** One skill: its artifact(s) downloaded, verified, then written under `skillDir`. */
async function fetchEntry(
  entry: IndexEntry,
  skillDir: string,
  context: EntryContext,
): Promise<ReadonlyMap<string, ExtractedFile>> {
  const what = `skill "${entry.name}"`;
  if (entry.kind === "skill-md") {
    const data = await download(
      entry.url,
      entry.digest,
      context.caps.maxMemberBytes,
      what,
      context,
    );
    spend(context, data.length, 1);
    await Deno.writeFile(join(skillDir, "SKILL.md"), data, { createNew: true, mode: FILE_MODE });
    return new Map([["SKILL.md", { size: data.length, digest: entry.digest }]]);
  }
  if (entry.kind === "archive") {
    const files = await unpack(entry.url, entry.digest, skillDir, what, context);
    if (!files.has("SKILL.md")) {
      throw archiveRefused(context.source, what, "bad-archive", "it has no SKILL.md at its root");
    }
    return files;
  }
  const listed = new Map(entry.files.map((file) => [file.path, file.digest]));
  let files: Map<string, ExtractedFile>;
  if (entry.package !== null) {
    files = new Map(await unpack(entry.package.url, entry.package.digest, skillDir, what, context));
    for (const [path, file] of files) {
      if (listed.get(path) !== file.digest) {
        throw new RemoteError(
          "digest-mismatch",
          `${context.source.spec}: ${what}: "${path}" in its package ` +
            (listed.has(path) ? "does not match its digest" : "is not in its files list") +
            "; the last good copy is kept",
        );
      }
    }
    const missing = [...listed.keys()].filter((path) => !files.has(path));
    if (missing.length > 0) {
      throw new RemoteError(
        "digest-mismatch",
        `${context.source.spec}: ${what}: its package lacks "${
          missing[0]
        }"; the last good copy is kept`,
      );
    }
  } else {
    if (entry.files.length > context.budget.members) {
      throw new RemoteError(
        "too-large",
        `${context.source.spec}: more than the member cap of files`,
      );
    }
    files = new Map();
    for (const file of entry.files) {
      const data = await download(
        file.url,
        file.digest,
        context.caps.maxMemberBytes,
        `${what}: "${file.path}"`,
        context,
      );
      spend(context, data.length, 1);
      const target = join(skillDir, file.path);
      try {
        await Deno.mkdir(dirname(target), { recursive: true, mode: FOLDER_MODE });
        await Deno.writeFile(target, data, { createNew: true, mode: FILE_MODE });
      } catch (error) {
        if (
          error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory
        ) {
          throw new RemoteError(
            "unsafe-archive",
            `${context.source.spec}: ${what}: two files claim the path "${file.path}"`,
          );
        }
        throw error;
      }
      files.set(file.path, { size: data.length, digest: file.digest });
    }
  }
  const recomputed = await skillLevelDigest(
    Object.fromEntries([...files].map(([path, file]) => [path, file.digest])),
  );
  if (recomputed !== entry.digest) {
    throw new RemoteError(
      "digest-mismatch",
      `${context.source.spec}: ${what}: its files do not add up to its skill digest; ` +
        "the last good copy is kept",
    );
  }
  return files;
}

/** Downloads an artifact and checks its digest; nothing is written here. */
async function download(
  url: string,
  digest: string,
  maxBytes: number,
  what: string,
  context: EntryContext,
): Promise<Uint8Array> {
  const answer = await context.get(url, maxBytes, false, "*/*");
  checkStatus(answer, context.source, what);
  if (await sha256Of(answer.body) !== digest) {
    throw new RemoteError(
      "digest-mismatch",
      `${context.source.spec}: ${what} does not match its digest in the index; refused, the ` +
        "last good copy is kept",
    );
  }
  return answer.body;
}

/** Downloads an archive, checks its digest, then unpacks it (`.tar.gz` or `.zip`, by content). */
async function unpack(
  url: string,
  digest: string,
  skillDir: string,
  what: string,
  context: EntryContext,
): Promise<ReadonlyMap<string, ExtractedFile>> {
  const data = await download(
    url,
    digest,
    context.caps.maxArchiveBytes,
    `the archive of ${what}`,
    context,
  );
  const caps: RemoteCaps = {
    ...context.caps,
    maxUnpackedBytes: context.budget.unpackedBytes,
    maxMembers: context.budget.members,
  };
  let extraction;
  try {
    if (data[0] === 0x1f && data[1] === 0x8b) {
      extraction = await extractTarball(data, skillDir, "", {
        caps,
        signal: context.signal,
        hasTopFolder: false,
      });
    } else if (data[0] === 0x50 && data[1] === 0x4b) {
      extraction = await extractZip(data, skillDir, { caps, signal: context.signal });
    } else {
      throw new RemoteError("bad-archive", "it is neither .tar.gz nor .zip");
    }
  } catch (error) {
    // Review n8: a refused archive read as "cannot be reached". The archive readers say what
    // was wrong; here it gains whose archive it was, that it was refused, and what to do.
    if (error instanceof RemoteError && REFUSED_ARCHIVE.has(error.reason)) {
      throw archiveRefused(
        context.source,
        what,
        error.reason,
        error.message.replace(/^Refused archive: /, ""),
      );
    }
    throw error;
  }
  spend(context, extraction.unpackedBytes, extraction.members);
  return extraction.files;
}

/** The archive readers' reasons that mean the archive itself was refused (not the network). */
const REFUSED_ARCHIVE: ReadonlySet<RemoteFailure> = new Set([
  "unsafe-archive",
  "bad-archive",
  "too-large",
]);

/**
 * The error for a publisher's archive that skillgate refused to unpack: whose
 * archive, that it was refused and why, that nothing of it is served, and
 * what to do.
 */
function archiveRefused(
  source: PublisherSource,
  what: string,
  reason: RemoteFailure,
  why: string,
): RemoteError {
  const fix = reason === "too-large"
    ? "ask the publisher to make it smaller, or, if you trust it, raise the matching " +
      "--remote-max-* option (skillgate --help lists them)"
    : "ask the publisher to fix it, or remove this source";
  return new RemoteError(
    reason,
    `${source.spec}: the archive of ${what} was refused (${why}); nothing from it is ` +
      `served, and the last good copy of this source, if any, is kept. To fix: ${fix}`,
  );
}

function spend(context: EntryContext, bytes: number, members: number): void {
  context.budget.unpackedBytes -= bytes;
  context.budget.members -= members;
  if (context.budget.unpackedBytes < 0) {
    throw new RemoteError(
      "too-large",
      `${context.source.spec}: its skills unpack to more than ${context.caps.maxUnpackedBytes} bytes`,
    );
  }
  if (context.budget.members < 0) {
    throw new RemoteError(
      "too-large",
      `${context.source.spec}: its skills hold more than ${context.caps.maxMembers} files`,
    );
  }
}

function checkStatus(answer: GetAnswer, source: PublisherSource, what: string): void {
  if (answer.status === 200) return;
  if (answer.status === 404 || answer.status === 410) {
    throw new RemoteError("not-found", `${source.spec}: ${what} was not found (${answer.status})`);
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new RemoteError(
      "unauthorized",
      `${source.spec}: the publisher refused ${what} (${answer.status})`,
    );
  }
  if (answer.status === 429) {
    throw new RemoteError("rate-limited", `${source.spec}: the publisher is rate limiting; wait`);
  }
  throw new RemoteError(
    "http",
    `${source.spec}: the publisher answered ${answer.status} for ${what}`,
  );
}

function sameDigests(
  a: Readonly<Record<string, SkillDigests>>,
  b: Readonly<Record<string, SkillDigests>>,
): boolean {
  const changes = diffSkills(a, b);
  return changes.added.length + changes.removed.length + changes.changed.length === 0;
}
