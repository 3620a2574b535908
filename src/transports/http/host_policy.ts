/**
 * Which `Host` and `Origin` header values the HTTP transport accepts: the
 * defence against DNS rebinding and against web pages driving a local server.
 * Pure: the policy is built once from the listen address and the allow-lists.
 *
 * @module
 */

/** Host names that always mean this machine. */
const LOOPBACK_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];
/** Listen addresses that mean "every interface". */
const WILDCARD_HOSTS: readonly string[] = ["0.0.0.0", "::", "[::]"];

/** Where the server listens and what the owner allowed on top. */
export interface HostPolicyInput {
  /** The listen address as configured (`--host`), e.g. `127.0.0.1`, `::1`, `0.0.0.0`. */
  readonly host: string;
  /** The listen port, 1-65535. */
  readonly port: number;
  /**
   * Extra `Host` values (`--allowed-hosts`): `name` admits that name on any
   * port, `name:port` only on that port. Case-insensitive.
   */
  readonly allowedHosts: readonly string[];
  /** Extra `Origin` values (`--allowed-origins`), e.g. `https://app.example.com`. */
  readonly allowedOrigins: readonly string[];
}

/** The checks built from a {@linkcode HostPolicyInput}. */
export interface HostPolicy {
  /**
   * Whether a `Host` header value may reach this server: on loopback, one of
   * this server's names; bound beyond loopback, any value (a token is
   * required there, so a `Host` check adds nothing against DNS rebinding and
   * would only refuse port mappings and machine names).
   */
  isHostAllowed(host: string | null): boolean;
  /**
   * Whether a present `Origin` may talk to this server: a loopback origin on
   * the listen port, an allowed origin, or the origin of the `Host` itself
   * (same origin) when that `Host` is one of this server's names or allowed
   * hosts. Beyond loopback the same-origin rule still uses the strict names,
   * so a rebound page's own origin never passes.
   */
  isOriginAllowed(origin: string, host: string | null): boolean;
}

/**
 * Whether a listen address or host name stays on this machine.
 *
 * @param host A host as configured or as sent (`127.0.0.1`, `::1`, `[::1]`, `localhost`).
 * @returns True for `localhost`, `127.0.0.0/8` and `::1`.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase();
  if (name === "localhost" || name === "::1" || name === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * Formats a listen address for a URL or a `host:port` permission: IPv6
 * literals get brackets.
 *
 * @param host The listen address, e.g. `::1` or `127.0.0.1`.
 * @returns `[::1]` or `127.0.0.1`.
 */
export function urlHost(host: string): string {
  const name = host.trim().toLowerCase();
  return name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
}

/**
 * Builds the policy. Always valid: `localhost`, `127.0.0.1` and `[::1]` with
 * the listen port (as `Host`, and as `http://` origins); the listen address
 * itself when it is a specific address (not `0.0.0.0` or `::`). Everything
 * else only through the allow-lists; except that bound beyond loopback
 * (where `settleHttpToken` requires a bearer token) any `Host` is accepted.
 *
 * @param input The listen address and the allow-lists.
 * @returns The policy.
 *
 * Source: MCP 2025-11-25, "Transports", security warning (servers MUST
 * validate `Origin`; 403 when present and invalid); "Security Best Practices",
 * local server compromise (DNS rebinding).
 */
export function createHostPolicy(input: HostPolicyInput): HostPolicy {
  const ownNames = new Set(LOOPBACK_NAMES);
  const listen = urlHost(input.host);
  if (!WILDCARD_HOSTS.includes(listen)) ownNames.add(listen);
  const exactHosts = new Set<string>();
  const anyPortHosts = new Set<string>();
  for (const entry of input.allowedHosts) {
    const parsed = parseHostPort(entry.trim().toLowerCase());
    if (parsed === null) continue;
    if (parsed.port === null) anyPortHosts.add(parsed.name);
    else exactHosts.add(`${parsed.name}:${parsed.port}`);
  }
  const origins = new Set<string>();
  for (const name of ownNames) origins.add(`http://${name}:${input.port}`);
  for (const entry of input.allowedOrigins) {
    const origin = normaliseOrigin(entry);
    if (origin !== null) origins.add(origin);
  }
  const isOwnHost = (host: string | null): boolean => {
    if (host === null) return false;
    const parsed = parseHostPort(host.trim().toLowerCase());
    if (parsed === null) return false;
    const port = parsed.port ?? 80;
    if (ownNames.has(parsed.name) && port === input.port) return true;
    return anyPortHosts.has(parsed.name) || exactHosts.has(`${parsed.name}:${port}`);
  };
  const isAnyHostAllowed = !isLoopbackHost(input.host);
  return {
    isHostAllowed: (host) => isAnyHostAllowed || isOwnHost(host),
    isOriginAllowed: (origin, host) => {
      const normalised = normaliseOrigin(origin);
      if (normalised === null) return false;
      if (origins.has(normalised)) return true;
      if (host === null || !isOwnHost(host)) return false;
      const url = new URL(normalised);
      return url.host === host.trim().toLowerCase();
    },
  };
}

/**
 * Splits a `Host` value (or an `--allowed-hosts` entry).
 *
 * @param value `name[:port]` or `[v6][:port]`, already lowercased; no scheme,
 *   no path, no user info.
 * @returns The name and the port (1-65535, null when absent); null when
 *   malformed.
 *
 * Source: RFC 9110 section 7.2 (Host = uri-host [ ":" port ]).
 */
export function parseHostPort(value: string): { name: string; port: number | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:\[\]\s/@?#*]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null || match[1] === undefined) return null;
  if (match[2] === undefined) return { name: match[1], port: null };
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { name: match[1], port } : null;
}

/**
 * Normalises an `Origin` value (or an `--allowed-origins` entry).
 *
 * @param value `http://` or `https://` then `host[:port]`, an optional final
 *   `/`, nothing else.
 * @returns The origin as browsers serialise it (lowercase, default port
 *   dropped), or null for `null`, `*`, paths, user info, other schemes, junk.
 *
 * Source: RFC 6454 section 6.1 (serialising an origin).
 */
export function normaliseOrigin(value: string): string | null {
  const trimmed = value.trim();
  if (!/^https?:\/\/[^/?#@\s*]+\/?$/i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    if (url.port !== "" && Number(url.port) < 1) return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}
