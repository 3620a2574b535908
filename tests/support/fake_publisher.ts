/**
 * TEST-ONLY: a loopback publisher of Agent Skills under
 * `/.well-known/agent-skills/` (the discovery RFC), the publisher-side
 * twin of `tests/remote/_fake_github.ts`. It serves an `index.json` in
 * either shape with an ETag and a Last-Modified (answering 304 to
 * `If-None-Match` / `If-Modified-Since`), every artifact the index names
 * (SKILL.md files, `.tar.gz` and `.zip` archives, per-file paths), and
 * redirects set by the test. Records every request.
 *
 * @module
 */

import { buildTarball, type TarMember } from "../remote/_tarball.ts";
import { buildZip } from "./zip_builder.ts";

/** How a skill is published. */
export type Publication =
  | "skill-md" // discovery shape, the SKILL.md itself
  | "tar.gz" // discovery shape, an archive
  | "zip" // discovery shape, an archive
  | "files" // files shape, each file fetched on its own
  | "files+tar.gz" // files shape with a package
  | "files+zip"; // files shape with a package

/** One skill to publish: its files (path -> text) and how. */
export interface PublishedSkill {
  readonly name: string;
  readonly files: Readonly<Record<string, string>>;
  readonly as: Publication;
}

/** A request the fake saw. */
export interface PublisherRequest {
  readonly path: string;
  readonly ifNoneMatch: string | null;
  readonly ifModifiedSince: string | null;
  readonly status: number;
}

/** The running publisher. */
export interface FakePublisher extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/.well-known/agent-skills/`. */
  readonly base: string;
  /** Path -> body served (tests may overwrite a body to tamper with it). */
  readonly routes: Map<string, Uint8Array>;
  /** Path -> absolute Location answered with a 302. */
  readonly redirects: Map<string, string>;
  readonly seen: PublisherRequest[];
  /** Stops the listener (the publisher goes down). */
  stop(): Promise<void>;
}

const WELL_KNOWN = "/.well-known/agent-skills/";

/**
 * Starts the publisher on 127.0.0.1 (an ephemeral port).
 *
 * @returns The publisher; dispose it to stop it.
 */
export function startFakePublisher(): FakePublisher {
  const routes = new Map<string, Uint8Array>();
  const redirects = new Map<string, string>();
  const seen: PublisherRequest[] = [];
  const answer = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const location = redirects.get(path);
    if (location !== undefined) return new Response(null, { status: 302, headers: { location } });
    const body = routes.get(path);
    if (body === undefined) return new Response("Not Found", { status: 404 });
    if (!path.endsWith("/index.json")) return new Response(body as Uint8Array<ArrayBuffer>);
    const etag = `"${(await hex(body)).slice(0, 16)}"`;
    const lastModified = indexDates.get(path) ?? new Date(0).toUTCString();
    const ifNoneMatch = request.headers.get("if-none-match");
    const ifModifiedSince = request.headers.get("if-modified-since");
    const isFresh = ifNoneMatch !== null
      ? ifNoneMatch === etag
      : ifModifiedSince !== null && ifModifiedSince === lastModified;
    const headers = { etag, "last-modified": lastModified, "content-type": "application/json" };
    if (isFresh) return new Response(null, { status: 304, headers });
    return new Response(body as Uint8Array<ArrayBuffer>, { headers });
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const response = await answer(request);
    seen.push({
      path: new URL(request.url).pathname,
      ifNoneMatch: request.headers.get("if-none-match"),
      ifModifiedSince: request.headers.get("if-modified-since"),
      status: response.status,
    });
    return response;
  });
  let isStopped = false;
  const stop = async () => {
    if (isStopped) return;
    isStopped = true;
    await server.shutdown();
  };
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    base: `${origin}${WELL_KNOWN}`,
    routes,
    redirects,
    seen,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

const indexDates = new Map<string, string>();
let dateTick = Date.UTC(2026, 0, 1);

/**
 * Publishes skills: builds each artifact, serves it, and writes the index
 * in the shape the publications call for (`discovery` when every skill is
 * `skill-md`/`tar.gz`/`zip`, else `files`; a `skill-md`/`tar.gz`/`zip`
 * skill in a `files` index is then an entry of the wrong shape, which
 * readers skip), replacing what was published.
 *
 * @param fake The publisher.
 * @param skills The skills.
 * @param top Top-level fields of the index (default: the shape's `$schema`
 *   or `version`); pass `{}` for an index with neither.
 * @returns The index bytes' `sha256:` digest (the revision a lock pins).
 */
export async function publishSkills(
  fake: FakePublisher,
  skills: readonly PublishedSkill[],
  top?: Record<string, unknown>,
): Promise<string> {
  for (const path of [...fake.routes.keys()]) {
    if (path.startsWith(WELL_KNOWN)) fake.routes.delete(path);
  }
  const isFilesShape = skills.some((skill) => skill.as.startsWith("files"));
  const entries: unknown[] = [];
  const encoder = new TextEncoder();
  for (const skill of skills) {
    const at = `${WELL_KNOWN}${skill.name}`;
    if (skill.as === "skill-md") {
      const data = encoder.encode(skill.files["SKILL.md"] ?? "");
      fake.routes.set(`${at}/SKILL.md`, data);
      entries.push(discoveryEntry(skill, "skill-md", `${skill.name}/SKILL.md`, data));
      continue;
    }
    if (skill.as === "tar.gz" || skill.as === "zip") {
      const data = await buildArchive(skill.as, skill.files);
      fake.routes.set(`${at}.${skill.as}`, data);
      entries.push(discoveryEntry(skill, "archive", `${skill.name}.${skill.as}`, data));
      continue;
    }
    const files: { path: string; digest: string }[] = [];
    for (const [path, text] of Object.entries(skill.files)) {
      const data = encoder.encode(text);
      fake.routes.set(`${at}/${path}`, data);
      files.push({ path, digest: `sha256:${await hex(data)}` });
    }
    const entry: Record<string, unknown> = {
      name: skill.name,
      description: `The ${skill.name} skill.`,
      digest: await skillDigest(files),
      files,
    };
    if (skill.as !== "files") {
      const format = skill.as === "files+zip" ? "zip" : "tar.gz";
      const data = await buildArchive(format, skill.files);
      fake.routes.set(`${at}.${format}`, data);
      entry.package = {
        url: `${fake.base}${skill.name}.${format}`,
        digest: `sha256:${await hex(data)}`,
      };
    }
    entries.push(entry);
  }
  const head = top ??
    (isFilesShape
      ? { version: "0.2.0" }
      : { $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json" });
  const resolved = await Promise.all(entries);
  return await setIndex(fake, { ...head, skills: resolved });
}

/**
 * Serves `value` as the index (for hand-written and hostile indexes).
 *
 * @param fake The publisher.
 * @param value Any JSON value.
 * @returns The index bytes' `sha256:` digest.
 */
export async function setIndex(fake: FakePublisher, value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(value, null, 2));
  const path = `${WELL_KNOWN}index.json`;
  fake.routes.set(path, bytes);
  dateTick += 1000;
  indexDates.set(path, new Date(dateTick).toUTCString());
  return `sha256:${await hex(bytes)}`;
}

/**
 * Builds a skill archive whose root is the skill folder.
 *
 * @param format `tar.gz` or `zip`.
 * @param files Path -> text.
 * @returns The archive bytes.
 */
export async function buildArchive(
  format: "tar.gz" | "zip",
  files: Readonly<Record<string, string>>,
): Promise<Uint8Array> {
  if (format === "zip") {
    return await buildZip(Object.entries(files).map(([name, data]) => ({ name, data })));
  }
  const members: TarMember[] = Object.entries(files).map(([name, data]) => ({ name, data }));
  return await buildTarball(members);
}

/**
 * SHA-256 of bytes, lowercase hex.
 *
 * @param data The bytes.
 * @returns 64 hex digits.
 */
export async function hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function discoveryEntry(
  skill: PublishedSkill,
  type: "skill-md" | "archive",
  url: string,
  data: Uint8Array,
): Promise<Record<string, unknown>> {
  return {
    name: skill.name,
    type,
    description: `The ${skill.name} skill.`,
    url,
    digest: `sha256:${await hex(data)}`,
  };
}

async function skillDigest(files: readonly { path: string; digest: string }[]): Promise<string> {
  const manifest = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) => `${file.path}\0${file.digest.slice(7)}\n`).join("");
  return `sha256:${await hex(new TextEncoder().encode(manifest))}`;
}
