/**
 * The fetcher worker's Deno permission set, with a reason per entry: net to
 * the API host and its download host and to each allowed publisher origin
 * (`--well-known-allow`), read and write on this configuration's sources'
 * folders in the sources cache (never the whole cache, which other
 * configurations' sources share: review r16, A5),
 * the one environment name `GITHUB_TOKEN` (the GitHub hosts and the token
 * only when a GitHub source is configured); nothing else (no run, sys, ffi,
 * no skill root, no other folder).
 *
 * @module
 */

import type { ExplainedPermissions } from "../sandbox/worker_permissions.ts";
import { type GitHubEndpoints, hostPort } from "./github_hosts.ts";

/** The one environment name the fetcher reads. */
export const FETCHER_ENV_NAMES: readonly string[] = Object.freeze(["GITHUB_TOKEN"]);

/**
 * Computes the fetcher's set.
 *
 * @param endpoints The API host and download host (`host:port`).
 * @param sourceFolders The configured sources' folders in the sources cache,
 *   `<cache>/<sourceKey>`, absolute (`RemoteSetup.sourceFolders`); each is
 *   granted read and write, nothing else of the cache.
 * @param publisherOrigins `--well-known-allow` origins (`https://host[:port]`),
 *   each added as its `host:port` and nothing more. @default []
 * @param options `gitHub: false` when no GitHub source is configured: then
 *   neither the GitHub hosts nor `GITHUB_TOKEN` are in the set, so a worker
 *   that talks only to publishers never holds the token. @default { gitHub: true }
 * @returns The frozen set and a reason for each entry, keyed `kind:value`.
 */
export function computeFetcherPermissions(
  endpoints: GitHubEndpoints,
  sourceFolders: readonly string[],
  publisherOrigins: readonly string[] = [],
  options: { readonly gitHub: boolean } = { gitHub: true },
): ExplainedPermissions {
  const publisherHosts = publisherOrigins.map((origin) => hostPort(new URL(origin)));
  const gitHubHosts = options.gitHub ? [endpoints.apiHost, endpoints.downloadHost] : [];
  const net = [...new Set([...gitHubHosts, ...publisherHosts])];
  const folders = [...new Set(sourceFolders)];
  const reasons: Record<string, string> = {};
  for (const folder of folders) {
    reasons[`read:${folder}`] =
      "a configured source's folder in the sources cache: its last good copies and their state";
    reasons[`write:${folder}`] = "a configured source's folder in the sources cache: extract " +
      "into a fresh folder, then swap it in; no other source's folder";
  }
  if (options.gitHub) {
    reasons[`net:${endpoints.apiHost}`] =
      "the GitHub API host (--github-api): resolve refs, ask for tarballs";
    reasons["env:GITHUB_TOKEN"] = "sent to the API host only, never on a redirect, never logged";
  }
  if (options.gitHub && endpoints.downloadHost !== endpoints.apiHost) {
    reasons[`net:${endpoints.downloadHost}`] =
      "the download host the API redirects tarballs to (codeload.github.com or " +
      "--github-download-host); no token goes there";
  }
  for (const host of publisherHosts) {
    reasons[`net:${host}`] ??=
      "an allowed publisher origin (--well-known-allow): its index.json, artifacts and " +
      "redirects within the allowed origins; no token goes there";
  }
  return Object.freeze({
    permissions: Object.freeze({
      read: Object.freeze(folders),
      run: Object.freeze([]),
      env: options.gitHub ? FETCHER_ENV_NAMES : Object.freeze([]),
      net: Object.freeze(net),
      write: Object.freeze([...folders]),
      sys: Object.freeze([]),
      ffi: Object.freeze([]),
    }),
    reasons: Object.freeze(reasons),
  });
}
