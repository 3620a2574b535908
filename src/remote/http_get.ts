/**
 * GET with redirects followed by hand: every hop's URL is re-checked against
 * the allowed hosts before it is requested, `GITHUB_TOKEN` goes only on the
 * first request and only when it is to the API host (never on a redirect),
 * and the answer's body is read up to a byte cap.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { type GitHubEndpoints, hostPort, refusalOfUrl } from "./github_hosts.ts";
import { MAX_REDIRECTS } from "./remote_caps.ts";
import { RemoteError } from "./remote_error.ts";

/** One GET's settings. */
export interface GetOptions {
  /** The GitHub hosts every hop must be on (unless `refuse` is given). */
  readonly endpoints?: GitHubEndpoints;
  /**
   * Decides each hop instead of `endpoints` (publisher sources: the origin
   * allowlist); null allows it, a string is the refusal.
   */
  readonly refuse?: (url: URL) => string | null;
  /** `GITHUB_TOKEN`, or null. Sent only to the API host, only on the first hop. */
  readonly token: string | null;
  /** The `Accept` header. */
  readonly accept: string;
  /** An ETag to send as `If-None-Match` (first hop only). */
  readonly ifNoneMatch?: string | null;
  /** A `Last-Modified` value to send as `If-Modified-Since` (first hop only). */
  readonly ifModifiedSince?: string | null;
  /** Bytes of body read at most; more fails with `too-large`. */
  readonly maxBytes: number;
  /** Aborts the request (the fetch's deadline). */
  readonly signal: AbortSignal;
}

/** An answer other than a redirect. */
export interface GetAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The body (empty for 304). */
  readonly body: Uint8Array;
}

/**
 * Fetches a URL, following at most {@linkcode MAX_REDIRECTS} redirects by hand.
 * Requires `--allow-net` for every host a hop may reach (the API host and
 * the download host, or the allowed publisher origins).
 *
 * @param url The first URL (on the API host, or a publisher's index or artifact).
 * @param options Endpoints or `refuse`, token, headers, byte cap and signal.
 * @returns The final answer, any status but a redirect.
 * @throws {RemoteError} `refused-host` when a hop is off the allowed hosts,
 *   `offline` when the connection fails, `timeout` when the signal fires,
 *   `too-large` beyond `maxBytes`, `http` on a redirect without a target or
 *   too many hops.
 */
export async function getFollowingRedirects(url: URL, options: GetOptions): Promise<GetAnswer> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const endpoints = options.endpoints;
    const refusal = options.refuse !== undefined
      ? options.refuse(current)
      : endpoints === undefined
      ? "no allowed hosts were given"
      : refusalOfUrl(current, endpoints);
    if (refusal !== null) {
      throw new RemoteError("refused-host", `Refused to fetch: ${refusal}`);
    }
    const headers = new Headers({
      "Accept": options.accept,
      "User-Agent": `skillgate/${VERSION}`,
    });
    if (endpoints !== undefined && options.refuse === undefined) {
      headers.set("X-GitHub-Api-Version", "2022-11-28");
    }
    const isApiHop = hop === 0 && endpoints !== undefined && options.refuse === undefined &&
      hostPort(current) === endpoints.apiHost;
    if (isApiHop && options.token !== null && options.token !== "") {
      headers.set("Authorization", `Bearer ${options.token}`);
    }
    if (hop === 0 && options.ifNoneMatch) headers.set("If-None-Match", options.ifNoneMatch);
    if (hop === 0 && options.ifModifiedSince) {
      headers.set("If-Modified-Since", options.ifModifiedSince);
    }
    let response: Response;
    try {
      response = await fetch(current, { headers, redirect: "manual", signal: options.signal });
    } catch {
      if (options.signal.aborted) throw new RemoteError("timeout", "The fetch took too long");
      throw new RemoteError(
        "offline",
        // Review n7: the JS class name ("TypeError") told the owner nothing.
        `Could not reach ${current.host} (no network, a DNS failure or the connection was ` +
          "refused); nothing was fetched from it",
      );
    }
    if ([301, 302, 303, 307, 308].includes(response.status)) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (location === null) throw new RemoteError("http", "A redirect without a Location");
      try {
        current = new URL(location, current);
      } catch {
        throw new RemoteError("http", "A redirect to something that is not a URL");
      }
      continue;
    }
    const body = await readCapped(response, options.maxBytes, options.signal);
    return { status: response.status, headers: response.headers, body };
  }
  throw new RemoteError("http", `More than ${MAX_REDIRECTS} redirects`);
}

async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel();
    throw new RemoteError("too-large", `The answer is ${declared} bytes; the cap is ${maxBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        throw new RemoteError("too-large", `The answer passed the cap of ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof RemoteError) throw error;
    if (signal.aborted) throw new RemoteError("timeout", "The fetch took too long");
    throw new RemoteError("offline", "The connection broke while downloading");
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
