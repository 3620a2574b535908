/**
 * Opaque cursors for name-ordered pages. A cursor encodes the last name
 * served, so a catalog refresh between pages neither skips nor repeats a
 * skill that stayed.
 *
 * @module
 */

/**
 * Encodes the last name of a page as a cursor.
 *
 * @param lastName The name of the last entry served.
 * @returns An opaque string (base64url, no padding, of JSON).
 */
export function encodeNameCursor(lastName: string): string {
  return new TextEncoder().encode(JSON.stringify({ after: lastName }))
    .toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Decodes a cursor made by {@linkcode encodeNameCursor}.
 *
 * @param cursor The opaque string a client sent back.
 * @returns The name to continue after, or null when the cursor is not ours.
 */
export function decodeNameCursor(cursor: string): string | null {
  try {
    const bytes = Uint8Array.fromBase64(cursor, {
      alphabet: "base64url",
      lastChunkHandling: "loose",
    });
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (typeof value === "object" && value !== null && "after" in value) {
      const after = (value as { after: unknown }).after;
      if (typeof after === "string") return after;
    }
    return null;
  } catch {
    return null;
  }
}

/**
 * The one message for a cursor this server did not issue (every paginated
 * list: `skill_list`, `resources/list`, `prompts/list`, `skills/list`,
 * `resources/directory/read`): what was wrong and both ways on (review n8:
 * each list said it differently, `skills/list` with no way on).
 *
 * @param list What to call again, e.g. `"resources/list"`.
 * @returns Sentence case, no final period.
 */
export function foreignCursorMessage(list: string): string {
  return `The cursor is not one this server issued: pass back a page's nextCursor exactly as ` +
    `received, or call ${list} without a cursor to start from the first page`;
}
