/**
 * Standard base64 (with padding) of bytes, for CSP hashes.
 *
 * @module
 */

/**
 * Encodes bytes as standard base64.
 *
 * @param bytes The bytes.
 * @returns Base64 with `+`, `/` and `=` padding.
 */
export function encodeBase64Standard(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
