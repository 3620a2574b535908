/**
 * Remote sources while serving, trusted side: before the worker starts, the
 * sources become roots from the cache alone (never the network); once it
 * runs, the fetcher worker fetches in the background and then every
 * `--poll` seconds, and any change of the roots (a new commit swapped in, a
 * failure, an update available) goes to the serving worker, which rebuilds
 * and notifies clients. Requires `--allow-all`, as the trusted part.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { cacheAtRoot } from "../config/index_cache_dir.ts";
import type { RootPaths } from "../sandbox/worker_permissions.ts";
import type { Root } from "../skills/skill.ts";
import type { FetchOutcome } from "./fetch_source.ts";
import { type Fetcher, startFetcher } from "./fetcher_host.ts";
import { type Lock, LockError, readLockFile } from "./lock_file.ts";
import { remoteRoots } from "./remote_roots.ts";
import { revisionLabel } from "./remote_source.ts";
import { makeSourceFolders, sourcesCacheProblem } from "./sources_cache.ts";
import { CacheDirError, type RemoteSetup, remoteSetup } from "./remote_setup.ts";

/** The configuration with the remote roots added, and what serving them needs. */
export interface PreparedRemote {
  /** `config` with one root per source appended (`from: "remote"`). */
  readonly config: Config;
  readonly setup: RemoteSetup;
  readonly lock: Lock | null;
  /** The remote roots the worker reads (available ones), for its permission set. */
  readonly paths: readonly RootPaths[];
  /**
   * Why the sources cache folder is not trusted (`cacheFolderProblem`), or null: when set, every
   * source is unavailable and no fetcher runs (it would write where another user may).
   */
  readonly cacheProblem: string | null;
}

/**
 * Adds the sources' roots from the cache. Creates the cache folder.
 *
 * @param config The configuration.
 * @param getEnv Reads `XDG_CACHE_HOME`, `HOME`.
 * @returns Null when no source is configured, the prepared state, or an
 *   error message (no cache folder, one at a local skill root, an unreadable
 *   lock) for exit code 2.
 */
export async function prepareRemote(
  config: Config,
  getEnv: (name: string) => string | undefined,
): Promise<PreparedRemote | { readonly error: string } | null> {
  let setup: RemoteSetup | null;
  let lock: Lock | null;
  try {
    setup = await remoteSetup(config, getEnv);
    if (setup === null) return null;
    lock = await readLockFile(config.lockPath);
  } catch (error) {
    if (error instanceof CacheDirError || error instanceof LockError) {
      return { error: error.message };
    }
    throw error;
  }
  await Deno.mkdir(setup.cacheDir, { recursive: true, mode: 0o700 });
  // The fetcher writes there and its skills are served from there: never at a local root, where
  // a publisher's files would land inside a local skill (and be served as its files).
  const atRoot = cacheAtRoot(
    setup.cacheDir,
    config.roots.filter((root) => root.from !== "remote").map((root) => root.path),
  );
  if (atRoot !== null) {
    return {
      error: `the remote sources cache folder ${setup.cacheDir} is, holds or lies inside the ` +
        `skill root ${atRoot}, where fetched files would be served as local skills' files; set ` +
        "XDG_CACHE_HOME to a folder outside the skill roots",
    };
  }
  // The cache first, then this configuration's own folders in it (each part's whole reach).
  const cacheProblem = sourcesCacheProblem(setup.cacheDir) ??
    await sourceFoldersProblem(setup.sourceFolders);
  const roots = await remoteRoots(config.remoteSources, {
    cacheDir: setup.cacheDir,
    lock,
    frozen: config.options.frozen,
    caps: setup.caps,
    lockPath: config.lockPath,
    cacheProblem,
  });
  return {
    cacheProblem,
    config: Object.freeze({ ...config, roots: Object.freeze([...config.roots, ...roots]) }),
    setup,
    lock,
    paths: roots.filter((root) => root.isUnavailable !== true).map((root) => ({
      path: root.path,
      realPath: root.path,
    })),
  };
}

/**
 * The sources' own folders made and checked ({@linkcode makeSourceFolders}),
 * as a clause for a sentence about the sources cache folder, or null.
 */
async function sourceFoldersProblem(sourceFolders: readonly string[]): Promise<string | null> {
  const problem = await makeSourceFolders(sourceFolders);
  return problem === null ? null : `holds a source folder that may not be trusted: ${problem}`;
}

/** The background fetching of a serving process. */
export interface RemoteRefresh {
  /** Resolves when the first background fetch is done (tests, `--static`). */
  readonly firstFetch: Promise<void>;
  /** Stops polling and ends the fetcher. */
  close(): void;
}

/**
 * Starts fetching in the background, then polling.
 *
 * @param prepared From {@linkcode prepareRemote}.
 * @param options `updateRemoteRoots`: hands the serving worker new roots;
 *   `log`: one line to stderr.
 * @returns The running refresh.
 */
export function startRemoteRefresh(
  prepared: PreparedRemote,
  options: {
    readonly updateRemoteRoots: (roots: readonly Root[]) => void;
    readonly log: (line: string) => void;
  },
): RemoteRefresh {
  const { config, setup, lock } = prepared;
  if (prepared.cacheProblem !== null) {
    // Nothing is fetched into a folder another user may write; the roots say why.
    options.log(
      `remote sources are not served: the sources cache folder ${setup.cacheDir} ` +
        `${prepared.cacheProblem}; make it a folder of yours that only you may write (chmod go-w)`,
    );
    return { firstFetch: Promise.resolve(), close() {} };
  }
  const sources = config.remoteSources;
  const fetcher: Fetcher = startFetcher(setup.fetcher.permissions, setup);
  let current = JSON.stringify(config.roots.filter((root) => root.from === "remote"));
  let isRunning = false;
  let isClosed = false;
  // A pinned copy refused at start because it no longer matches on disk: fetch it again once.
  let refetch = new Set(
    config.roots.filter((root) =>
      root.from === "remote" && root.notes?.some((note) => note.reason === "remote-lock-mismatch")
    ).flatMap((root) => root.source ?? []),
  );
  const run = async (isPoll: boolean) => {
    if (isRunning || isClosed) return;
    isRunning = true;
    try {
      const outcomes = await fetcher.fetch(
        sources.filter((source) => !(isPoll && source.kind === "github" && source.isCommitPin))
          .map((source) => ({
            given: source.given,
            locked: lock?.sources.find((entry) => entry.spec === source.spec) ?? null,
            update: false,
            checkForUpdate: lock !== null,
            refetch: refetch.has(source.spec),
          })),
      );
      refetch = new Set();
      const bySpec = new Map<string, FetchOutcome>(outcomes.map((o) => [o.spec, o]));
      for (const outcome of outcomes) {
        if (outcome.failure !== null) {
          options.log(`${outcome.spec}: ${outcome.failure.message} (${outcome.failure.reason})`);
        } else if (outcome.status === "fetched") {
          options.log(
            `${outcome.spec}: now at ${revisionLabel(outcome.spec, outcome.commit ?? "")}`,
          );
        }
      }
      const roots = await remoteRoots(sources, {
        cacheDir: setup.cacheDir,
        lock,
        frozen: config.options.frozen,
        caps: setup.caps,
        lockPath: config.lockPath,
      }, bySpec);
      const next = JSON.stringify(roots);
      if (config.options.static) {
        if (next !== current) {
          options.log("remote sources changed; --static: restart to serve them");
        }
      } else if (!isClosed) {
        // Sent after every fetch: the worker ignores roots equal to those it serves, and this
        // repairs a local refresh that raced a remote swap.
        options.updateRemoteRoots(roots);
      }
      current = next;
    } catch (error) {
      if (!isClosed) options.log(`remote sources: ${(error as Error).message}`);
    } finally {
      isRunning = false;
    }
  };
  const firstFetch = run(false);
  const pollMs = config.options.static ? 0 : config.options.poll * 1000;
  const timer = pollMs > 0 ? setInterval(() => void run(true), pollMs) : null;
  if (timer !== null) Deno.unrefTimer(timer);
  return {
    firstFetch,
    close() {
      isClosed = true;
      if (timer !== null) clearInterval(timer);
      fetcher.close();
    },
  };
}
