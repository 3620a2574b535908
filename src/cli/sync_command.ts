/**
 * `skillgate sync [--update [SPEC...]]`: fetches every remote source through
 * the fetcher worker and writes the lock. Pins already in the lock are kept
 * (their content re-checked against it); a source not in the lock is pinned
 * at the content first seen (its cached copy from an earlier `serve`: trust
 * on first use), or, never fetched, at its ref's commit now; `--update` moves the pins (all, or the SPECs
 * named) and prints what changed. `--frozen` fails instead of changing the
 * lock. Requires `--allow-all`, as the trusted part (it starts the worker).
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { FetchOutcome } from "../remote/fetch_source.ts";
import { type Fetcher, type FetcherSetup, startFetcher } from "../remote/fetcher_host.ts";
import {
  diffSkills,
  type Lock,
  type LockedSource,
  LockError,
  readLockFile,
  renderLock,
  writeLockFile,
} from "../remote/lock_file.ts";
import { CacheDirError, remoteSetup } from "../remote/remote_setup.ts";
import {
  makeSourceFolders,
  readState,
  sourceKey,
  sourcesCacheProblem,
} from "../remote/sources_cache.ts";
import { damagedCopies } from "../remote/remote_roots.ts";
import { revisionLabel } from "../remote/remote_source.ts";
import type { RemoteFailure } from "../remote/remote_error.ts";
import type { WorkerPermissions } from "../sandbox/worker_permissions.ts";
import { type CommandIo, EXIT_USAGE } from "./command_io.ts";

/** Starts the fetcher (tests may pass another entry). */
export type FetcherStarter = (permissions: WorkerPermissions, setup: FetcherSetup) => Fetcher;

/**
 * Runs `skillgate sync`.
 *
 * @param config The configuration (`sources`, `lockPath`, `updateSpecs`, options).
 * @param io Outputs and the environment lookup.
 * @param start Starts the fetcher. @default startFetcher
 * @returns 0 when every source was fetched and the lock written; 1 when a
 *   source failed (the lock keeps its old entry for it) or `--frozen` found
 *   the lock would change; 2 when the cache or the lock cannot be used.
 */
export async function runSyncCommand(
  config: Config,
  io: CommandIo,
  start: FetcherStarter = startFetcher,
): Promise<number> {
  let setup;
  try {
    setup = await remoteSetup(config, io.getEnv);
  } catch (error) {
    if (!(error instanceof CacheDirError)) throw error;
    await io.writeErr(`skillgate: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (setup === null) return EXIT_USAGE;
  let lock: Lock | null;
  try {
    lock = await readLockFile(config.lockPath);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    await io.writeErr(`skillgate: ${error.message}\n`);
    return EXIT_USAGE;
  }
  await Deno.mkdir(setup.cacheDir, { recursive: true, mode: 0o700 });
  const cacheProblem = sourcesCacheProblem(setup.cacheDir);
  if (cacheProblem !== null) {
    await io.writeErr(
      `skillgate: the sources cache folder ${setup.cacheDir} ${cacheProblem}; nothing was ` +
        "fetched or pinned. Make it a folder of yours that only you may write (chmod go-w), or " +
        "set XDG_CACHE_HOME to one\n",
    );
    return EXIT_USAGE;
  }
  // This configuration's own folders in it: the fetcher's whole reach (review r16, A5).
  const folderProblem = await makeSourceFolders(setup.sourceFolders);
  if (folderProblem !== null) {
    await io.writeErr(
      `skillgate: in the sources cache, ${folderProblem}; nothing was fetched or pinned. ` +
        "Remove it (skillgate makes it again), or set XDG_CACHE_HOME to another folder\n",
    );
    return EXIT_USAGE;
  }
  const lockedBySpec = new Map((lock?.sources ?? []).map((entry) => [entry.spec, entry]));
  const moves = (spec: string) =>
    config.options.update && (config.updateSpecs.length === 0 || config.updateSpecs.includes(spec));
  // Trust on first use: a source served before without a lock is pinned at the content first
  // seen (its cached copy), not wherever its ref is now; --update moves it.
  const firstSeen = new Map<string, LockedSource>();
  for (const source of config.remoteSources) {
    if (lockedBySpec.has(source.spec) || moves(source.spec)) continue;
    const state = await readState(setup.cacheDir, await sourceKey(source));
    if (state !== null && state.spec === source.spec) {
      firstSeen.set(source.spec, { spec: source.spec, commit: state.commit, skills: state.skills });
    }
  }
  // A pinned copy edited on disk since it was checked is fetched again, not trusted.
  const damaged = await damagedCopies(config.remoteSources, {
    cacheDir: setup.cacheDir,
    lock: lock === null ? null : { sources: [...lockedBySpec.values()] },
    frozen: true,
    caps: setup.caps,
  });
  const fetcher = start(setup.fetcher.permissions, setup);
  let outcomes: FetchOutcome[];
  try {
    outcomes = await fetcher.fetch(config.remoteSources.map((source) => ({
      given: source.given,
      locked: lockedBySpec.get(source.spec) ?? firstSeen.get(source.spec) ?? null,
      update: moves(source.spec),
      checkForUpdate: false,
      refetch: damaged.has(source.spec),
    })));
  } finally {
    fetcher.close();
  }
  const next: LockedSource[] = [];
  let failed = 0;
  let isUnreachable = true;
  for (const [index, source] of config.remoteSources.entries()) {
    const outcome = outcomes[index]!;
    const before = lockedBySpec.get(source.spec) ?? null;
    if (outcome.failure !== null || outcome.commit === null || outcome.skills === null) {
      failed++;
      if (outcome.failure !== null && !UNREACHABLE.has(outcome.failure.reason)) {
        isUnreachable = false;
      }
      await io.writeErr(
        `skillgate: ${source.spec}: ${outcome.failure?.message ?? "no content"} ` +
          `(${outcome.failure?.reason ?? "failed"})\n`,
      );
      if (before !== null) next.push(before);
      continue;
    }
    next.push({ spec: source.spec, commit: outcome.commit, skills: outcome.skills });
    await io.writeOut(`${describe(source.spec, before, outcome)}\n`);
  }
  for (const spec of lockedBySpec.keys()) {
    if (!config.remoteSources.some((source) => source.spec === spec)) {
      await io.writeOut(`${spec}: removed from the lock (no longer a configured source)\n`);
    }
  }
  const newLock: Lock = { sources: next };
  const isSame = lock !== null && renderLock(lock) === renderLock(newLock);
  if (config.options.frozen && !isSame) {
    await io.writeErr(
      lock === null
        ? `skillgate: --frozen: there is no lock file at ${config.lockPath} to keep; run ` +
          "skillgate sync without --frozen (and the same --lock) to create it\n"
        : `skillgate: --frozen: the lock ${config.lockPath} would change; run skillgate sync ` +
          "without --frozen (and the same --lock) to update it\n",
    );
    return 1;
  }
  // Review n7: a first sync that pinned nothing wrote an empty lock, and a failed sync said
  // "up to date".
  if (lock === null && next.length === 0 && failed > 0) {
    // Review n8: a refused archive or index was summed up as "once the sources can be reached".
    await io.writeErr(
      `skillgate: no lock written: no source could be pinned (${failed} failed); run ` +
        (isUnreachable
          ? "skillgate sync again once the sources can be reached\n"
          : "skillgate sync again once what is named above is fixed\n"),
    );
    return 1;
  }
  if (!isSame) await writeLockFile(config.lockPath, newLock);
  const failures = failed > 0
    ? ` (${failed} source${failed === 1 ? "" : "s"} failed: ${
      failed === 1 ? "its entry is" : "their entries are"
    } kept as they were)`
    : "";
  await io.writeOut(
    isSame
      ? failed > 0
        ? `${config.lockPath} is unchanged${failures}\n`
        : `${config.lockPath} is up to date\n`
      : `wrote ${config.lockPath}${failures}\n`,
  );
  return failed > 0 ? 1 : 0;
}

/** Failure reasons that mean a source could not be reached (not that its content was refused). */
const UNREACHABLE: ReadonlySet<RemoteFailure> = new Set<RemoteFailure>([
  "offline",
  "timeout",
  "rate-limited",
  "http",
]);

/** One line per source: its pin and what changed. */
function describe(spec: string, before: LockedSource | null, outcome: FetchOutcome): string {
  const commit = revisionLabel(spec, outcome.commit!);
  if (before === null) {
    const count = Object.keys(outcome.skills ?? {}).length;
    return `${spec}: pinned ${commit} (${count} skill${count === 1 ? "" : "s"})`;
  }
  if (before.commit === outcome.commit) return `${spec}: ${commit} unchanged`;
  const { added, removed, changed } = diffSkills(before.skills, outcome.skills ?? {});
  const parts = [
    ...added.map((name) => `+${name}`),
    ...removed.map((name) => `-${name}`),
    ...changed.map((name) => `~${name}`),
  ];
  return `${spec}: ${revisionLabel(spec, before.commit)} -> ${commit}` +
    (parts.length === 0 ? " (no skill changed)" : `: ${parts.join(" ")}`);
}
