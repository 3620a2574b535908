/**
 * Opaque `resources/list` cursors. A cursor encodes the (skill name, file
 * path) of the last entry served, not an offset, so a catalog refresh between
 * pages neither skips nor repeats an entry that stayed.
 *
 * @module
 */

/** The position a page ended at. */
export interface ResourcePosition {
  /** The skill name of the last entry served. */
  readonly name: string;
  /** The file path of the last entry served. */
  readonly path: string;
}

/** Tags our cursors so a cursor of another list is not mistaken for one. */
const KIND = "resources";

/**
 * Encodes the last entry of a page as a cursor.
 *
 * @param position The skill name and file path of the last entry served.
 * @returns An opaque string: base64url (no padding) of a small JSON object.
 *
 * Source: MCP 2025-11-25, "Pagination" (cursors are opaque to clients).
 */
export function encodeResourceCursor(position: ResourcePosition): string {
  const json = JSON.stringify({ k: KIND, s: position.name, p: position.path });
  return new TextEncoder().encode(json).toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Decodes a cursor made by {@linkcode encodeResourceCursor}.
 *
 * @param cursor The string a client sent back.
 * @returns The position to continue after, or null when the cursor is not
 *   one this module made (bad base64, bad UTF-8, bad JSON, wrong shape).
 */
export function decodeResourceCursor(cursor: string): ResourcePosition | null {
  try {
    const bytes = Uint8Array.fromBase64(cursor, {
      alphabet: "base64url",
      lastChunkHandling: "loose",
    });
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (typeof value !== "object" || value === null) return null;
    const { k, s, p } = value as Record<string, unknown>;
    if (k !== KIND || typeof s !== "string" || typeof p !== "string") return null;
    return { name: s, path: p };
  } catch {
    return null;
  }
}
