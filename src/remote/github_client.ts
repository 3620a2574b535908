/**
 * The two GitHub REST calls a source needs, no git: resolve a ref to a
 * commit (`GET /repos/{owner}/{repo}/commits/{ref}`, `Accept:
 * application/vnd.github.sha`, conditional with `If-None-Match`) and
 * download that commit's tarball (`GET /repos/{owner}/{repo}/tarball/{sha}`,
 * answered with a redirect to the download host).
 *
 * Rule source: GitHub REST API, "Get a commit" (the `sha` media type) and
 * "Download a repository archive (tar)".
 *
 * @module
 */

import { type GetAnswer, getFollowingRedirects } from "./http_get.ts";
import type { GitHubEndpoints } from "./github_hosts.ts";
import { MAX_API_ANSWER_BYTES } from "./remote_caps.ts";
import { RemoteError } from "./remote_error.ts";
import type { GitHubSource } from "./source_spec.ts";

/** How the client reaches GitHub. */
export interface ClientOptions {
  readonly endpoints: GitHubEndpoints;
  readonly token: string | null;
  readonly signal: AbortSignal;
}

/** A resolved ref: its commit, or "not modified" since `etag`. */
export type Resolution =
  | { readonly notModified: false; readonly commit: string; readonly etag: string | null }
  | { readonly notModified: true };

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * Resolves the source's ref (default: `HEAD`, the default branch) to a commit.
 * Requires `--allow-net` for the API host.
 *
 * @param source The source.
 * @param etag The ETag of the last answer, sent as `If-None-Match` (a 304
 *   does not count against GitHub's rate limit), or null.
 * @param options Endpoints, token, signal.
 * @returns The commit and the answer's ETag, or `notModified`.
 * @throws {RemoteError} `not-found`, `rate-limited`, `unauthorized`, `http`
 *   (with the status) or any reason of {@linkcode getFollowingRedirects}.
 */
export async function resolveCommit(
  source: GitHubSource,
  etag: string | null,
  options: ClientOptions,
): Promise<Resolution> {
  const ref = source.ref ?? "HEAD";
  const url = apiUrl(options.endpoints, source, `commits/${encodeRef(ref)}`);
  const answer = await getFollowingRedirects(url, {
    ...options,
    accept: "application/vnd.github.sha",
    ifNoneMatch: etag,
    maxBytes: MAX_API_ANSWER_BYTES,
  });
  if (answer.status === 304) return { notModified: true };
  checkStatus(answer, source, `ref "${ref}"`);
  const commit = new TextDecoder().decode(answer.body).trim();
  if (!COMMIT.test(commit)) {
    throw new RemoteError("http", `${source.spec}: the API did not answer a commit SHA`);
  }
  return { notModified: false, commit, etag: answer.headers.get("etag") };
}

/**
 * Downloads the tarball of one commit (redirects followed by hand, each hop
 * re-checked; the token never leaves the API host). Requires `--allow-net`
 * for the API host and the download host.
 *
 * @param source The source.
 * @param commit A 40-hex commit.
 * @param options Endpoints, token, signal, and `maxBytes` (the archive cap).
 * @returns The gzip bytes.
 * @throws {RemoteError} As {@linkcode resolveCommit}; `too-large` beyond `maxBytes`.
 */
export async function downloadTarball(
  source: GitHubSource,
  commit: string,
  options: ClientOptions & { readonly maxBytes: number },
): Promise<Uint8Array> {
  const url = apiUrl(options.endpoints, source, `tarball/${commit}`);
  const answer = await getFollowingRedirects(url, {
    ...options,
    accept: "application/vnd.github+json",
  });
  checkStatus(answer, source, `commit ${commit.slice(0, 12)}`);
  return answer.body;
}

function apiUrl(endpoints: GitHubEndpoints, source: GitHubSource, tail: string): URL {
  return new URL(
    `${endpoints.apiBase}/repos/${encodeURIComponent(source.owner)}/` +
      `${encodeURIComponent(source.repo)}/${tail}`,
  );
}

function encodeRef(ref: string): string {
  return ref.split("/").map(encodeURIComponent).join("/");
}

function checkStatus(answer: GetAnswer, source: GitHubSource, what: string): void {
  if (answer.status === 200) return;
  const remaining = answer.headers.get("x-ratelimit-remaining");
  if (answer.status === 429 || (answer.status === 403 && remaining === "0")) {
    const reset = Number(answer.headers.get("x-ratelimit-reset"));
    const when = Number.isFinite(reset) && reset > 0
      ? ` until ${new Date(reset * 1000).toISOString()}`
      : "";
    throw new RemoteError(
      "rate-limited",
      `${source.spec}: GitHub's rate limit is spent${when}; set GITHUB_TOKEN or wait`,
    );
  }
  if (answer.status === 404) {
    throw new RemoteError(
      "not-found",
      `${source.spec}: repository or ${what} not found (or not visible without GITHUB_TOKEN)`,
    );
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new RemoteError(
      "unauthorized",
      `${source.spec}: GitHub refused access (${answer.status}); check GITHUB_TOKEN`,
    );
  }
  throw new RemoteError("http", `${source.spec}: GitHub answered ${answer.status} for ${what}`);
}
