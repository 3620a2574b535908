/**
 * One source, end to end: pick the commit (the lock's pin, or the ref
 * resolved now), download its tarball, extract it into a fresh folder with
 * every check, compare it with the lock, and swap it in. Any failure leaves
 * the last good copy exactly as it was. Runs in the fetcher worker.
 *
 * @module
 */

import { join } from "node:path";
import { downloadTarball, resolveCommit } from "./github_client.ts";
import type { GitHubEndpoints } from "./github_hosts.ts";
import {
  diffSkills,
  groupSkills,
  type LockedSource,
  type SkillChanges,
  type SkillDigests,
} from "./lock_file.ts";
import type { RemoteCaps } from "./remote_caps.ts";
import { RemoteError, type RemoteFailure } from "./remote_error.ts";
import {
  discardExtraction,
  FOLDER_MODE,
  freshExtractionDir,
  readState,
  sourceKey,
  sourceLeaf,
  type SourceState,
  swapIn,
  writeState,
} from "./sources_cache.ts";
import type { GitHubSource } from "./source_spec.ts";
import { fetchPublisher } from "./fetch_publisher.ts";
import type { RemoteSource } from "./remote_source.ts";
import { extractTarball } from "./tar_extract.ts";

/** What to do for one source. */
export interface FetchRequest {
  readonly source: RemoteSource;
  /** The lock's entry for this spec, or null (no lock, or not in it). */
  readonly locked: LockedSource | null;
  /** Move past the lock's pin to the ref's current commit (`sync --update`). */
  readonly update: boolean;
  /** With a pin: also ask whether the ref moved (polling reports it; nothing changes). */
  readonly checkForUpdate: boolean;
  /**
   * Download and check the commit even when the cache records it: the trusted
   * part found the copy on disk no longer matching the lock. @default false
   */
  readonly refetch?: boolean;
}

/** Where and how to fetch. */
export interface FetchContext {
  readonly endpoints: GitHubEndpoints;
  readonly cacheDir: string;
  readonly caps: RemoteCaps;
  /** `GITHUB_TOKEN`, or null. */
  readonly token: string | null;
  /** Origins publisher sources may fetch from (`--well-known-allow`). @default [] */
  readonly publisherOrigins?: readonly string[];
}

/** The result for one source (plain data: it crosses the worker boundary). */
export interface FetchOutcome {
  readonly spec: string;
  /** `fetched`: a new commit swapped in; `unchanged`: the cache already held it; `failed`. */
  readonly status: "fetched" | "unchanged" | "failed";
  /** The commit now served from the cache (null when there is none). */
  readonly commit: string | null;
  /** Its skills' digests (null when there is no cache). */
  readonly skills: Readonly<Record<string, SkillDigests>> | null;
  /** What changed against the copy served before (empty lists when nothing did). */
  readonly changes: SkillChanges;
  /** With a pin and `checkForUpdate`: the ref's newer commit, or null. */
  readonly updateAvailable: string | null;
  readonly failure: { readonly reason: RemoteFailure; readonly message: string } | null;
}

const NO_CHANGES: SkillChanges = Object.freeze({ added: [], removed: [], changed: [] });

/**
 * Fetches one source into the cache (a publisher through
 * `fetchPublisher()`). Requires `--allow-net` (API host, download host, the
 * allowed publisher origins) and `--allow-read`/`--allow-write` on the cache folder.
 *
 * @param request The source, its lock entry, and what to do.
 * @param context Endpoints, cache folder, caps, token.
 * @returns The outcome; never throws for a remote failure (it is in `failure`).
 * @throws Only on a programming error or a cache that cannot be written.
 */
export async function fetchSource(
  request: FetchRequest,
  context: FetchContext,
): Promise<FetchOutcome> {
  const { source, locked } = request;
  if (source.kind === "well-known") return await fetchPublisher({ ...request, source }, context);
  const key = await sourceKey(source);
  const state = await readState(context.cacheDir, key);
  const signal = AbortSignal.timeout(context.caps.fetchTimeoutMs);
  const client = { endpoints: context.endpoints, token: context.token, signal };
  const usable = state !== null && state.spec === source.spec ? state : null;
  const failed = (error: unknown): FetchOutcome => {
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
  };
  try {
    let commit: string;
    let etag = usable?.etag ?? null;
    let etagCommit = usable?.etagCommit ?? null;
    let updateAvailable: string | null = null;
    const resolveRef = async (): Promise<string> => {
      const resolution = await resolveCommit(source, etagCommit === null ? null : etag, client);
      if (resolution.notModified) return etagCommit!;
      etag = resolution.etag;
      etagCommit = resolution.commit;
      return resolution.commit;
    };
    if (locked !== null && !request.update) {
      commit = locked.commit;
      if (request.checkForUpdate && !source.isCommitPin) {
        const head = await resolveRef();
        if (head !== commit) updateAvailable = head;
      }
    } else if (source.isCommitPin) {
      commit = source.ref!;
    } else {
      commit = await resolveRef();
    }
    const expected = locked !== null && locked.commit === commit ? locked.skills : null;
    if (usable !== null && usable.commit === commit && request.refetch !== true) {
      const stateMatches = expected === null || sameDigests(expected, usable.skills);
      if (stateMatches) {
        const kept: SourceState = { ...usable, etag, etagCommit, checkedAtMs: Date.now() };
        await writeState(context.cacheDir, key, kept);
        return outcome(source, "unchanged", kept, NO_CHANGES, updateAvailable);
      }
    }
    const skills = await downloadAndSwap(
      source,
      { commit, etag, etagCommit, expected, key },
      context,
      client,
    );
    const state: SourceState = {
      spec: source.spec,
      commit,
      etag,
      etagCommit,
      ref: source.ref,
      checkedAtMs: Date.now(),
      skills,
    };
    const changes = diffSkills(usable?.skills ?? {}, skills);
    return outcome(source, "fetched", state, changes, updateAvailable);
  } catch (error) {
    return failed(error);
  }
}

async function downloadAndSwap(
  source: GitHubSource,
  target: {
    commit: string;
    etag: string | null;
    etagCommit: string | null;
    expected: Readonly<Record<string, SkillDigests>> | null;
    key: string;
  },
  context: FetchContext,
  client: { endpoints: GitHubEndpoints; token: string | null; signal: AbortSignal },
): Promise<Record<string, Record<string, string>>> {
  const { commit, etag, etagCommit, expected, key } = target;
  const gzip = await downloadTarball(source, commit, {
    ...client,
    maxBytes: context.caps.maxArchiveBytes,
  });
  const dir = await freshExtractionDir(context.cacheDir, key);
  try {
    const dest = join(dir, sourceLeaf(source));
    await Deno.mkdir(dest, { mode: FOLDER_MODE });
    const extraction = await extractTarball(gzip, dest, source.path, {
      caps: context.caps,
      signal: client.signal,
    });
    const skills = groupSkills(extraction.files);
    if (expected !== null && !sameDigests(expected, skills)) {
      const changes = diffSkills(expected, skills);
      const named = [...changes.added, ...changes.removed, ...changes.changed].slice(0, 5);
      throw new RemoteError(
        "lock-mismatch",
        `${source.spec}: commit ${commit.slice(0, 12)} does not match the lock ` +
          `(skills differing: ${named.join(", ")}); the last good copy is kept`,
      );
    }
    await swapIn(context.cacheDir, key, dir, {
      spec: source.spec,
      commit,
      etag,
      etagCommit,
      ref: source.ref,
      checkedAtMs: Date.now(),
      skills,
    });
    return skills;
  } catch (error) {
    await discardExtraction(dir);
    throw error;
  }
}

function outcome(
  source: GitHubSource,
  status: "fetched" | "unchanged",
  state: SourceState,
  changes: SkillChanges,
  updateAvailable: string | null,
): FetchOutcome {
  return {
    spec: source.spec,
    status,
    commit: state.commit,
    skills: state.skills,
    changes,
    updateAvailable,
    failure: null,
  };
}

function sameDigests(
  a: Readonly<Record<string, SkillDigests>>,
  b: Readonly<Record<string, SkillDigests>>,
): boolean {
  const changes = diffSkills(a, b);
  return changes.added.length + changes.removed.length + changes.changed.length === 0;
}
