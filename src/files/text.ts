/**
 * Deciding whether file bytes are served as text, and encoding the rest.
 *
 * @module
 */

/** Strict: invalid UTF-8 throws; a BOM is kept in the text, not swallowed. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes bytes as text only when they are clearly text.
 *
 * @param bytes The file's bytes (or a prefix cut with
 *   {@linkcode cutAtUtf8Boundary}).
 * @returns The text, a leading BOM kept; `null` when the bytes hold a NUL or
 *   are not strictly valid UTF-8 (overlong forms, surrogates, cut sequences).
 *
 * Source: `skill_file` in `/work/shared/notes/anchors.md` (text only if the
 * bytes have no NUL and decode strictly).
 */
export function decodeStrictUtf8(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Encodes bytes as standard base64 (RFC 4648 section 4, padded), natively
 * with `Uint8Array.prototype.toBase64`.
 *
 * @param bytes Any bytes.
 * @returns The base64 text; empty for no bytes.
 */
export function encodeBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}

/**
 * Cuts bytes to the longest prefix of at most `maxBytes` that does not end
 * inside a UTF-8 sequence, for a text file that was truncated. Bytes that are
 * not valid UTF-8 at the cut are cut at `maxBytes` as they are.
 *
 * @param bytes UTF-8 bytes.
 * @param maxBytes Most bytes kept; a non-negative integer.
 * @returns A view of `bytes` (no copy): all of it when it fits, else a prefix
 *   at most 3 bytes shorter than `maxBytes`.
 * @throws {RangeError} When `maxBytes` is not a non-negative safe integer.
 */
export function cutAtUtf8Boundary(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`Option maxBytes must be a non-negative integer (got "${maxBytes}")`);
  }
  if (bytes.length <= maxBytes) return bytes;
  // Find the start of the last sequence in the prefix (at most 3 bytes back).
  let start = maxBytes - 1;
  while (start >= 0 && start > maxBytes - 4 && isContinuation(bytes[start] ?? 0)) start--;
  if (start < 0) return bytes.subarray(0, maxBytes);
  const length = sequenceLength(bytes[start] ?? 0);
  return bytes.subarray(0, start + length > maxBytes ? start : maxBytes);
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Bytes a sequence has by its lead byte; 1 for anything that is not a lead. */
function sequenceLength(lead: number): number {
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}
