/**
 * Publisher sources (the Agent Skills discovery RFC): a spec
 * `https://HOST[:PORT][/BASE][/.well-known/agent-skills][/][index.json][,prefix=NAME]`
 * parsed into a frozen {@linkcode PublisherSource}, and the default-deny
 * origin allowlist (`--well-known-allow`): exact origin match, no
 * wildcards, plain `http://` only on loopback. Pure: no I/O.
 *
 * Rule source: Agent Skills Discovery via Well-Known URIs, v0.2.0
 * (`/.well-known/agent-skills/index.json`), RFC 8615 (well-known URIs),
 * RFC 6454 (origins).
 *
 * @module
 */

import { isLoopbackHost } from "./github_hosts.ts";
import { MAX_PREFIX_CHARS, SourceSpecError } from "./source_spec.ts";

/** One parsed publisher source. */
export interface PublisherSource {
  readonly kind: "well-known";
  /**
   * Canonical spec, the lock's key:
   * `https://host[:port][/base]/.well-known/agent-skills/` (host lowercased,
   * default port left out).
   */
  readonly spec: string;
  /** The text as the owner wrote it (for messages). */
  readonly given: string;
  /** `https://host[:port]` (the form `--well-known-allow` lists). */
  readonly origin: string;
  /** The base path before `/.well-known`, `""` or `/a/b`. */
  readonly basePath: string;
  /** `…/.well-known/agent-skills/index.json`, the first URL fetched. */
  readonly indexUrl: string;
  /** Served-name prefix: `PREFIX__NAME`, `skill://PREFIX/NAME/...`. */
  readonly prefix: string;
}

const WELL_KNOWN = "/.well-known/agent-skills";
const FORMS = "write https://HOST[/BASE]/.well-known/agent-skills/[,prefix=NAME]";
const PREFIX = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEGMENT = /^[A-Za-z0-9._~-]{1,255}$/;

/**
 * Parses one publisher spec. The `/.well-known/agent-skills` suffix may be
 * left off; a trailing `/index.json` is accepted.
 *
 * @param text One spec, e.g. `https://example.com/docs/.well-known/agent-skills/,prefix=ex`.
 * @returns The frozen source.
 * @throws {SourceSpecError} When it is not an http(s) URL, carries
 *   credentials, a query or a fragment, is plain http beyond loopback, its
 *   base path has an unusual segment, or the prefix breaks the name rule.
 */
export function parsePublisherSpec(text: string): PublisherSource {
  const given = text.trim();
  const [main = "", ...options] = given.split(",");
  let prefix: string | null = null;
  for (const option of options) {
    const match = /^prefix=(.*)$/.exec(option);
    if (match === null) {
      throw new SourceSpecError(`Source "${given}": unknown option "${option}"; ${FORMS}`);
    }
    prefix = match[1] ?? "";
  }
  let url: URL;
  try {
    url = new URL(main);
  } catch {
    throw new SourceSpecError(`Source "${given}" is not a URL; ${FORMS}`);
  }
  const refusal = urlRefusal(url);
  if (refusal !== null) throw new SourceSpecError(`Source "${given}": ${refusal}; ${FORMS}`);
  if (url.search !== "" || url.hash !== "" || main.includes("?") || main.includes("#")) {
    throw new SourceSpecError(`Source "${given}": a query or fragment is not allowed; ${FORMS}`);
  }
  // The URL parser folds `a/../b` and decodes nothing: judge the text as written.
  const writtenPath = main.replace(/^[a-z]+:\/\/[^/]*/i, "");
  if (/(^|\/)\.\.?(\/|$)|%|\\/.test(writtenPath)) {
    throw new SourceSpecError(
      `Source "${given}": the path must not hold '.', '..', '%' or '\\'; ${FORMS}`,
    );
  }
  let path = url.pathname.replace(/\/index\.json$/, "").replace(/\/+$/, "");
  if (path.endsWith(WELL_KNOWN)) path = path.slice(0, -WELL_KNOWN.length);
  const segments = path.split("/").filter((segment) => segment !== "");
  if (
    segments.some((segment) => !SEGMENT.test(segment) || segment === "." || segment === "..") ||
    segments.join("/").length > 1024 || segments.includes(".well-known")
  ) {
    throw new SourceSpecError(
      `Source "${given}": the base path must be plain folder names (letters, digits, ` +
        `'.', '_', '~', '-'); ${FORMS}`,
    );
  }
  const basePath = segments.length === 0 ? "" : `/${segments.join("/")}`;
  const origin = url.origin;
  const finalPrefix = prefix ?? defaultPublisherPrefix(url.hostname, basePath);
  if (!PREFIX.test(finalPrefix) || finalPrefix.length > MAX_PREFIX_CHARS) {
    throw new SourceSpecError(
      `Source "${given}": prefix "${finalPrefix}" must be 1-${MAX_PREFIX_CHARS} characters of ` +
        "lowercase a-z, digits and single '-' (it becomes PREFIX__NAME)",
    );
  }
  return Object.freeze({
    kind: "well-known" as const,
    spec: `${origin}${basePath}${WELL_KNOWN}/`,
    given,
    origin,
    basePath,
    indexUrl: `${origin}${basePath}${WELL_KNOWN}/index.json`,
    prefix: finalPrefix,
  });
}

/**
 * The default prefix: the host, plus the base path when there is one,
 * lowercased, every run of characters other than `a-z0-9` made one `-`,
 * trimmed, cut to 64 characters (`docs.example.com` + `/team` ->
 * `docs-example-com-team`).
 *
 * @param hostname The URL's hostname.
 * @param basePath `""` or `/a/b`.
 * @returns A prefix matching the Agent Skills name rule (`publisher` if nothing is left).
 */
export function defaultPublisherPrefix(hostname: string, basePath: string): string {
  const slug = `${hostname}${basePath}`.toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "").slice(0, MAX_PREFIX_CHARS).replace(/-+$/, "");
  return slug === "" ? "publisher" : slug;
}

/** An allowlist entry that is not an origin. */
export class OriginListError extends Error {
  /** @param message What was wrong and how to write it. */
  constructor(message: string) {
    super(message);
    this.name = "OriginListError";
  }
}

/**
 * Normalises `--well-known-allow` entries to origins (`https://host[:port]`,
 * default port left out, host lowercased).
 *
 * @param entries The entries as written.
 * @returns The origins, deduplicated, in order.
 * @throws {OriginListError} When an entry is not `http(s)://host[:port]`
 *   (with at most a trailing `/`), carries credentials, or is plain http
 *   beyond loopback. Wildcards are never accepted.
 */
export function parseOriginList(entries: readonly string[]): string[] {
  const origins: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === "") continue;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new OriginListError(
        `--well-known-allow entry "${entry}" is not an origin; write https://HOST[:PORT]`,
      );
    }
    const refusal = urlRefusal(url);
    const isBareOrigin = /^https?:\/\/[^/?#*\s]+\/?$/i.test(entry) && url.pathname === "/";
    if (refusal !== null || !isBareOrigin) {
      throw new OriginListError(
        `--well-known-allow entry "${entry}" is not an origin: ` +
          `${refusal ?? "no path, query, fragment or wildcard"}; write https://HOST[:PORT]`,
      );
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

/**
 * Whether a URL may be fetched from a publisher: http(s), no credentials,
 * plain http only on loopback, and its origin exactly one of `allowed`.
 *
 * @param url The URL of this hop (the index, an artifact, a redirect target).
 * @param allowed Origins from {@linkcode parseOriginList}.
 * @returns Null when allowed, or the reason (naming no allow-list) otherwise.
 */
export function refusalOfPublisherUrl(url: URL, allowed: readonly string[]): string | null {
  const refusal = urlRefusal(url);
  if (refusal !== null) return `the target ${refusal}`;
  if (!allowed.includes(url.origin)) {
    return `the target origin ${url.origin} is not an allowed publisher origin`;
  }
  return null;
}

/**
 * Whether a source's origin is on the allowlist.
 *
 * @param source The source.
 * @param allowed Origins from {@linkcode parseOriginList}.
 * @returns True when listed exactly.
 */
export function isOriginAllowed(source: PublisherSource, allowed: readonly string[]): boolean {
  return allowed.includes(source.origin);
}

function urlRefusal(url: URL): string | null {
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https:// URL";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return "may use plain http:// only on a loopback address";
  }
  return null;
}
