/**
 * Which hosts a fetch may reach: the API host (`--github-api`, default
 * `https://api.github.com`) and its download host (`codeload.github.com` for
 * github.com, the API host itself for GitHub Enterprise, or
 * `--github-download-host`). Plain `http://` only for loopback addresses.
 * Pure: no I/O.
 *
 * @module
 */

/** The API endpoint and the hosts a fetch may reach, decided at start-up. */
export interface GitHubEndpoints {
  /** API base URL without a trailing slash, e.g. `https://api.github.com`. */
  readonly apiBase: string;
  /** `host:port` of the API (the only host that ever sees `GITHUB_TOKEN`). */
  readonly apiHost: string;
  /** `host:port` tarball redirects may lead to. */
  readonly downloadHost: string;
}

/** An endpoint the configuration names that skillgate will not use. */
export class EndpointError extends Error {
  /** @param message What was wrong and what to do. */
  constructor(message: string) {
    super(message);
    this.name = "EndpointError";
  }
}

/** Default `--github-api`. */
export const DEFAULT_GITHUB_API = "https://api.github.com";

/**
 * Decides the endpoints from the options.
 *
 * @param apiUrl `--github-api`: `https://...` (any host) or `http://` on a
 *   loopback address; a path is kept (GitHub Enterprise's `/api/v3`).
 * @param downloadHost `--github-download-host` (`host[:port]`), or null to
 *   derive it: `codeload.github.com:443` for `api.github.com`, else the API host.
 * @returns The frozen endpoints.
 * @throws {EndpointError} When the URL is not http(s), carries credentials, a
 *   query or fragment, or is plain http beyond loopback.
 */
export function decideEndpoints(apiUrl: string, downloadHost: string | null): GitHubEndpoints {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new EndpointError(`--github-api "${apiUrl}" is not a URL; give https://HOST[/PATH]`);
  }
  checkUrl(url, "--github-api");
  if (url.search !== "" || url.hash !== "") {
    throw new EndpointError("--github-api must not carry a query or fragment");
  }
  const apiHost = hostPort(url);
  let download: string;
  if (downloadHost !== null && downloadHost.trim() !== "") {
    download = normaliseHostPort(downloadHost.trim(), url.protocol);
    checkUrl(new URL(`${url.protocol}//${download}/`), "--github-download-host");
  } else {
    download = url.hostname === "api.github.com" ? "codeload.github.com:443" : apiHost;
  }
  return Object.freeze({
    apiBase: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`,
    apiHost,
    downloadHost: download,
  });
}

/**
 * Whether a URL may be fetched: http(s), no credentials, on one of the
 * allowed `host:port` strings, and plain http only on loopback.
 *
 * @param url The URL of this hop (the first request or a redirect target).
 * @param endpoints The allowed hosts.
 * @returns Null when allowed, or the reason (naming no allow-list) otherwise.
 */
export function refusalOfUrl(url: URL, endpoints: GitHubEndpoints): string | null {
  try {
    checkUrl(url, "the target");
  } catch (error) {
    return (error as Error).message;
  }
  const host = hostPort(url);
  if (host !== endpoints.apiHost && host !== endpoints.downloadHost) {
    return "the target host is not the GitHub API or its download host";
  }
  return null;
}

/**
 * Whether a host name is a loopback address (`localhost`, `127.0.0.0/8`, `::1`).
 *
 * @param hostname A URL's hostname (IPv6 bracketed or not).
 * @returns True for loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * `host:port` of a URL, with the scheme's default port filled in (the form
 * Deno's `net` permission and our host checks compare).
 *
 * @param url An http(s) URL.
 * @returns E.g. `api.github.com:443`, `127.0.0.1:8080`, `[::1]:80`.
 */
export function hostPort(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
  return `${url.hostname.toLowerCase()}:${port}`;
}

function normaliseHostPort(value: string, protocol: string): string {
  let url: URL;
  try {
    url = new URL(`${protocol}//${value}/`);
  } catch {
    throw new EndpointError(`--github-download-host "${value}" is not host[:port]`);
  }
  if (url.pathname !== "/" || url.username !== "" || url.password !== "") {
    throw new EndpointError(`--github-download-host "${value}" is not host[:port]`);
  }
  return hostPort(url);
}

function checkUrl(url: URL, what: string): void {
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new EndpointError(`${what} must be an https:// URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new EndpointError(`${what} must not carry credentials in the URL`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new EndpointError(`${what} may use plain http:// only on a loopback address`);
  }
}
