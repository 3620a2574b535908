/**
 * Confirmation tokens for the two-call flow: the first `skill_run` returns a
 * preview of exactly what will run and a token; the second call carries the
 * token back. The token is an HMAC-SHA256 (Web Crypto) over the canonical
 * preview, its issue time and a nonce, so it confirms that preview and no
 * other. It is checked in constant time, used once, and expires.
 *
 * Single use across restarts, without state on disk: a token is valid only
 * in a process that was already running when it was issued. Within one
 * process (stdio, HTTP with sessions) the key is random per start, so a
 * restart invalidates every outstanding token, spent or not. Stateless
 * replicas sharing `MCP_CONFIRM_SECRET` must accept each other's tokens, so
 * there the key is the secret and a replica refuses any token issued before
 * it started: every token it accepts was issued during its own lifetime, so
 * its in-memory spent list has seen every earlier use of it there. Single
 * use then holds per replica, across restarts (a token can be used at most
 * once on each replica within its TTL). Persisting spent ids instead would
 * need a writer (the worker that checks tokens has no write permission) and
 * would still be per replica. The same rule binds any later tamper-proof
 * state handed to clients (ARCHITECTURE.md, "State handed to clients").
 *
 * @module
 */

import { canonicalJson } from "./canonical_json.ts";

/** Why a token does not confirm a run. */
export type TokenRefusal = "TOKEN_INVALID" | "DRAFT_CHANGED" | "TOKEN_REUSED" | "TOKEN_EXPIRED";

/** Issues and checks confirmation tokens. */
export interface Confirmer {
  /**
   * Issues a token for a preview.
   *
   * @param preview The preview (a JSON value) exactly as shown.
   * @returns The token text.
   */
  issue(preview: unknown): Promise<string>;
  /**
   * Checks a token against the preview the same call would show now. On
   * success the token is spent.
   *
   * @param token The token the client sent.
   * @param preview The preview computed now.
   * @returns `ok`, or why it does not confirm this preview.
   */
  check(token: string, preview: unknown): Promise<"ok" | TokenRefusal>;
}

/** Options of {@linkcode createConfirmer}. */
export interface ConfirmerOptions {
  /**
   * Shared HMAC key for stateless replicas (`MCP_CONFIRM_SECRET`), or null.
   * Used only when `isSharedAcrossReplicas`; otherwise the key is random per
   * start whatever this says.
   */
  readonly secret: string | null;
  /**
   * Whether tokens must verify in other processes (stateless HTTP replicas
   * with a shared secret). @default false
   */
  readonly isSharedAcrossReplicas?: boolean;
  /** Token lifetime in seconds (1-86400). */
  readonly ttlSeconds: number;
  /** The clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
  /**
   * Spent tokens above which expired ones are looked for everywhere, not only
   * at the oldest end. @default 100000
   */
  readonly maxSpent?: number;
}

const TOKEN_SHAPE = /^v1\.(\d{1,15})\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;
/** How far in the future an issue time may lie (clock skew between replicas), in ms. */
const MAX_FUTURE_SKEW_MS = 60_000;

/**
 * Creates a confirmer. The key is the UTF-8 bytes of `secret` when tokens
 * are shared across replicas, else 32 random bytes; it never leaves this
 * object. Tokens issued before this call (by the clock `now`) are refused as
 * `TOKEN_EXPIRED`.
 *
 * @param options Secret, TTL, clock and the spent-token bound.
 * @returns The confirmer.
 *
 * Source: issue 4 (HMAC over the exact preview, constant-time compare, single
 * use, TTL `MCP_CONFIRM_TTL_SECONDS`, TOKEN_REUSED / DRAFT_CHANGED / TOKEN_EXPIRED).
 */
export function createConfirmer(options: ConfirmerOptions): Confirmer {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const maxSpent = options.maxSpent ?? 100_000;
  const keyBytes = options.secret !== null && options.isSharedAcrossReplicas === true
    ? new TextEncoder().encode(options.secret)
    : crypto.getRandomValues(new Uint8Array(32));
  /** No token issued before this process started is valid here (see the module doc). */
  const startedAtMs = Math.floor(now());
  const key = crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  /** Spent nonces with their expiry (ms); insertion order is expiry order. */
  const spent = new Map<string, number>();
  const sign = async (issuedAtMs: number, nonce: string, preview: unknown) => {
    const text = `skillgate-confirm-v1\n${issuedAtMs}\n${nonce}\n${canonicalJson(preview)}`;
    const mac = await crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(text));
    return new Uint8Array(mac);
  };
  return {
    issue: async (preview) => {
      const issuedAtMs = Math.floor(now());
      const nonce = crypto.getRandomValues(new Uint8Array(16)).toHex();
      const mac = await sign(issuedAtMs, nonce, preview);
      return `v1.${issuedAtMs}.${nonce}.${
        mac.toBase64({ alphabet: "base64url", omitPadding: true })
      }`;
    },
    check: async (token, preview) => {
      const match = TOKEN_SHAPE.exec(token);
      if (match === null) return "TOKEN_INVALID";
      const issuedAtMs = Number(match[1]);
      // Issued before this process started: by a previous run of the server (whose spent list
      // is gone) or before this replica existed. Refused before any MAC work.
      if (issuedAtMs < startedAtMs) return "TOKEN_EXPIRED";
      const nonce = match[2] as string;
      const given = fromBase64Url(match[3] as string);
      if (given === null) return "TOKEN_INVALID";
      const expected = await sign(issuedAtMs, nonce, preview);
      if (!constantTimeEqual(given, expected)) return "DRAFT_CHANGED";
      const at = now();
      forgetExpired(spent, at, maxSpent);
      if (spent.has(nonce)) return "TOKEN_REUSED";
      if (issuedAtMs > at + MAX_FUTURE_SKEW_MS) return "TOKEN_INVALID";
      if (at - issuedAtMs > ttlMs) return "TOKEN_EXPIRED";
      spent.set(nonce, issuedAtMs + ttlMs);
      return "ok";
    },
  };
}

/**
 * Forgets spent tokens that have expired (an expired token is refused anyway).
 * Entries are in spend order, which is nearly expiry order: the scan stops at
 * the first live one unless the map is over its bound, when it looks at all.
 * A live entry is never forgotten, so a token can never be spent twice.
 */
function forgetExpired(spent: Map<string, number>, at: number, maxSpent: number): void {
  const full = spent.size > maxSpent;
  for (const [nonce, expiresAt] of spent) {
    if (expiresAt >= at) {
      if (full) continue;
      break;
    }
    spent.delete(nonce);
  }
}

/**
 * Compares two byte arrays in time that depends only on their lengths.
 *
 * @param a One array.
 * @param b The other.
 * @returns True when they hold the same bytes.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] ?? 0) ^ (b[index] ?? 0);
  return difference === 0;
}

function fromBase64Url(text: string): Uint8Array | null {
  try {
    return Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {
    return null;
  }
}
