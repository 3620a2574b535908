/**
 * Opaque cursors for name-ordered pages. A cursor encodes the list it
 * belongs to and the last name served, so a catalog refresh between pages
 * neither skips nor repeats a skill that stayed, and no list reads another's
 * cursor.
 *
 * @module
 */

/**
 * The lists whose cursors hold a name, each tagging its own, so a cursor of
 * one list given to another is refused instead of misread (review hR L4:
 * `skills/list`'s cursor, a URI, read by `skill_list` as a name gave an empty
 * last page; `skill_list`'s read by `skills/list` restarted at page 1).
 * `resources/directory/read` tags with the directory's URI too, so one
 * directory's cursor is not read against another's children.
 * (`resources/list` has its own tagged cursor, `resource_cursor.ts`.)
 */
export type NameCursorList =
  | "skill_list"
  | "skills/list"
  | "prompts/list"
  | `resources/directory/read ${string}`;

/**
 * Encodes the last name of a page as a cursor of one list.
 *
 * @param list The list the cursor belongs to; only that list accepts it back.
 * @param lastName The name (or URI) of the last entry served.
 * @returns An opaque string (base64url, no padding, of JSON `{"list","after"}`).
 *
 * Source: MCP 2025-11-25, "Pagination" (cursors are opaque to clients).
 */
export function encodeNameCursor(list: NameCursorList, lastName: string): string {
  return new TextEncoder().encode(JSON.stringify({ list, after: lastName }))
    .toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Decodes a cursor made by {@linkcode encodeNameCursor} for the same list.
 * A cursor of another list, or one without a list (made before cursors were
 * tagged: they are opaque and live for one listing, so none is kept working),
 * is not ours.
 *
 * @param list The list being asked for.
 * @param cursor The opaque string a client sent back.
 * @returns The name to continue after, or null when the cursor is not one
 *   this list issued (bad base64, UTF-8 or JSON, wrong shape, another list).
 */
export function decodeNameCursor(list: NameCursorList, cursor: string): string | null {
  try {
    const bytes = Uint8Array.fromBase64(cursor, {
      alphabet: "base64url",
      lastChunkHandling: "loose",
    });
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (typeof value !== "object" || value === null) return null;
    const fields = value as { list?: unknown; after?: unknown };
    return fields.list === list && typeof fields.after === "string" ? fields.after : null;
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
