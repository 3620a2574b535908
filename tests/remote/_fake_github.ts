/**
 * TEST-ONLY: a loopback GitHub REST API (commits/{ref} with the sha media
 * type and ETags, tarball/{sha} answered with a redirect) and a second
 * loopback "download host" serving the tarballs built in the test. Records
 * every request's headers per host.
 *
 * @module
 */

/** One repository the fake serves. */
export interface FakeRepo {
  /** Branch or tag -> commit. `HEAD` is the default branch. */
  refs: Record<string, string>;
  /** Commit -> gzip tarball. */
  tarballs: Record<string, Uint8Array>;
}

/** A request the fake saw. */
export interface SeenRequest {
  readonly host: "api" | "download";
  readonly path: string;
  readonly authorization: string | null;
  readonly ifNoneMatch: string | null;
}

/** The running fake. */
export interface FakeGitHub extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, for `--github-api`. */
  readonly apiUrl: string;
  /** `127.0.0.1:PORT` of the download host. */
  readonly downloadHost: string;
  readonly repos: Map<string, FakeRepo>;
  readonly seen: SeenRequest[];
  /** When set, every API request answers this (e.g. 403 rate limit). */
  failWith: { status: number; headers?: Record<string, string> } | null;
  /** When set, tarball redirects go here instead of the download host. */
  redirectTo: string | null;
  /** Tarballs served instead of the real one, by commit (tampering). */
  tamper: Map<string, Uint8Array>;
}

/**
 * Starts both loopback servers.
 *
 * @param options `tls`: serve both hosts over HTTPS with this certificate and
 *   key (PEM), named `localhost`. @default plain HTTP on 127.0.0.1
 * @returns The fake; dispose it to stop both servers.
 */
export function startFakeGitHub(
  options: { tls?: { cert: string; key: string } } = {},
): FakeGitHub {
  const tls = options.tls ?? {};
  const scheme = options.tls === undefined ? "http" : "https";
  const hostname = options.tls === undefined ? "127.0.0.1" : "localhost";
  const repos = new Map<string, FakeRepo>();
  const seen: SeenRequest[] = [];
  const record = (host: "api" | "download", request: Request) =>
    seen.push({
      host,
      path: new URL(request.url).pathname,
      authorization: request.headers.get("authorization"),
      ifNoneMatch: request.headers.get("if-none-match"),
    });
  const download = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...tls },
    (request) => {
      record("download", request);
      const match = /^\/([^/]+)\/([^/]+)\/tar\.gz\/([0-9a-f]{40})$/.exec(
        new URL(request.url).pathname,
      );
      const repo = match ? repos.get(`${match[1]}/${match[2]}`) : undefined;
      const commit = match?.[3] ?? "";
      const body = fake.tamper.get(commit) ?? repo?.tarballs[commit];
      if (body === undefined) return new Response("Not Found", { status: 404 });
      return new Response(body as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "application/x-gzip" },
      });
    },
  );
  const downloadHost = `${hostname}:${download.addr.port}`;
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {}, ...tls }, (request) => {
    record("api", request);
    if (fake.failWith !== null) {
      return new Response(JSON.stringify({ message: "failure" }), {
        status: fake.failWith.status,
        headers: fake.failWith.headers ?? {},
      });
    }
    const path = new URL(request.url).pathname;
    const commits = /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)$/.exec(path);
    if (commits !== null) {
      const repo = repos.get(`${commits[1]}/${commits[2]}`);
      const sha = repo?.refs[decodeURIComponent(commits[3]!)];
      if (sha === undefined) return new Response('{"message":"Not Found"}', { status: 404 });
      const etag = `"${sha}"`;
      if (request.headers.get("if-none-match") === etag) {
        return new Response(null, { status: 304, headers: { etag } });
      }
      return new Response(sha, { headers: { etag, "content-type": "application/vnd.github.sha" } });
    }
    const tarball = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/([0-9a-f]{40})$/.exec(path);
    if (tarball !== null) {
      const target = fake.redirectTo ?? `${scheme}://${downloadHost}`;
      return new Response(null, {
        status: 302,
        headers: { location: `${target}/${tarball[1]}/${tarball[2]}/tar.gz/${tarball[3]}` },
      });
    }
    return new Response('{"message":"Not Found"}', { status: 404 });
  });
  const fake: FakeGitHub = {
    apiUrl: `${scheme}://${hostname}:${api.addr.port}`,
    downloadHost,
    repos,
    seen,
    failWith: null,
    redirectTo: null,
    tamper: new Map(),
    async [Symbol.asyncDispose]() {
      await api.shutdown();
      await download.shutdown();
    },
  };
  return fake;
}

/**
 * A fake 40-hex commit from a label.
 *
 * @param label Any text.
 * @returns 40 lowercase hex digits.
 */
export async function fakeCommit(label: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-1", new TextEncoder().encode(label)),
  );
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
