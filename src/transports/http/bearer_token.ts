/**
 * Checking the HTTP bearer token in constant time. Both the expected token
 * and the presented one are reduced to HMAC-SHA-256 digests under a random
 * per-process key, and the two 32-byte digests are compared without an early
 * exit, so neither the token's length nor a matching prefix shows in timing.
 *
 * @module
 */

/** What a request's `Authorization` header amounts to. */
export type BearerVerdict = "ok" | "missing" | "wrong";

/** Checks one `Authorization` header value. */
export type BearerCheck = (authorization: string | null) => Promise<BearerVerdict>;

/**
 * Builds the check for `token`.
 *
 * @param token The expected token (already trimmed, non-empty).
 * @returns A function of the `Authorization` header: `missing` when absent or
 *   not a `Bearer` credential, `wrong` when the token differs, `ok` otherwise.
 *
 * Source: RFC 6750 section 2.1 (`Authorization: Bearer <token>`, scheme
 * case-insensitive).
 */
export function createBearerCheck(token: string): BearerCheck {
  const keyBytes = crypto.getRandomValues(new Uint8Array(32));
  const key = crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const digestOf = async (value: string) =>
    new Uint8Array(await crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(value)));
  const expected = digestOf(token);
  return async (authorization) => {
    const match = authorization === null ? null : /^bearer +(\S+) *$/i.exec(authorization);
    const presented = match?.[1];
    if (presented === undefined) return "missing";
    return isEqualInConstantTime(await digestOf(presented), await expected) ? "ok" : "wrong";
  };
}

/**
 * Compares two byte arrays of equal length without an early exit.
 *
 * @param a First array.
 * @param b Second array.
 * @returns True when the lengths and every byte match.
 */
export function isEqualInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) {
    difference |= (a[index] ?? 0) ^ (b[index] ?? 0);
  }
  return difference === 0;
}
