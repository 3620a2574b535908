/**
 * What every remote-aware command derives from the configuration: the
 * endpoints, the sources cache folder, the caps and the fetcher's permission
 * set. One place, so `sync`, `serve` and `permissions` agree.
 *
 * @module
 */

import { join } from "node:path";
import type { Config } from "../config/config.ts";
import type { ExplainedPermissions } from "../sandbox/worker_permissions.ts";
import { computeFetcherPermissions } from "./fetcher_permissions.ts";
import type { FetcherSetup } from "./fetcher_host.ts";
import { decideEndpoints } from "./github_hosts.ts";
import { parseOriginList } from "./publisher_spec.ts";
import type { RemoteCaps } from "./remote_caps.ts";
import { sourceKey, sourcesCacheDir } from "./sources_cache.ts";
import { hasDotDotSegment } from "../config/index_cache_dir.ts";

/** The remote settings of one configuration. */
export interface RemoteSetup extends FetcherSetup {
  /**
   * This configuration's sources' folders, `<cacheDir>/<sourceKey(source)>`,
   * absolute, one per source in the configuration's order: every part's
   * sources-cache permission is exactly these (the fetcher's read and write,
   * the serving worker's, digest isolate's and declaration reader's read),
   * never the whole cache other configurations' sources share (review r16, A5).
   * The trusted part makes them ({@linkcode makeSourceFolders}) before any part starts.
   */
  readonly sourceFolders: readonly string[];
  /** The fetcher worker's permission set, with reasons. */
  readonly fetcher: ExplainedPermissions;
}

/** The sources cache cannot be placed (no `XDG_CACHE_HOME`, no `HOME`). */
export class CacheDirError extends Error {
  override name = "CacheDirError";
}

/**
 * Derives the remote setup.
 *
 * @param config The configuration (its sources already passed the allowlist).
 * @param getEnv Reads `XDG_CACHE_HOME` and `HOME`.
 * @returns The setup, or null when no source is configured.
 * @throws {CacheDirError} When neither variable gives an absolute folder, or
 *   the one used holds a `..` segment.
 */
export async function remoteSetup(
  config: Config,
  getEnv: (name: string) => string | undefined,
): Promise<RemoteSetup | null> {
  if (config.remoteSources.length === 0) return null;
  const cacheDir = sourcesCacheDir(getEnv);
  if (cacheDir === null) {
    throw new CacheDirError(
      "The sources cache needs XDG_CACHE_HOME or HOME set to an absolute folder",
    );
  }
  const xdg = getEnv("XDG_CACHE_HOME");
  const given = xdg !== undefined && xdg.startsWith("/") ? xdg : getEnv("HOME") ?? "";
  if (hasDotDotSegment(given)) {
    // Nothing is made where `..` would lead through links (review r15, H5).
    throw new CacheDirError(
      `The sources cache folder ${cacheDir} comes from an XDG_CACHE_HOME or HOME holding a ".." ` +
        'segment; set it without ".." (the real path of the folder meant)',
    );
  }
  const endpoints = decideEndpoints(config.options.githubApi, config.options.githubDownloadHost);
  const caps: RemoteCaps = {
    maxArchiveBytes: config.options.remoteMaxArchiveBytes,
    maxUnpackedBytes: config.options.remoteMaxUnpackedBytes,
    maxMembers: config.options.remoteMaxMembers,
    maxMemberBytes: config.options.remoteMaxMemberBytes,
    fetchTimeoutMs: config.options.remoteTimeoutSeconds * 1000,
  };
  // Checked at start-up (src/config/cli.ts); here only normalised.
  const publisherOrigins = Object.freeze(parseOriginList(config.options.wellKnownAllow));
  const keys = await Promise.all(config.remoteSources.map((source) => sourceKey(source)));
  const sourceFolders = Object.freeze([...new Set(keys)].map((key) => join(cacheDir, key)));
  return Object.freeze({
    endpoints,
    cacheDir,
    caps: Object.freeze(caps),
    publisherOrigins,
    sourceFolders,
    fetcher: computeFetcherPermissions(endpoints, sourceFolders, publisherOrigins, {
      gitHub: config.remoteSources.some((source) => source.kind === "github"),
    }),
  });
}
