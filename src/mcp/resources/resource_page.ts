/**
 * One page of `resources/list`: every file of every skill, in (skill name,
 * file path) order, computed from the catalog snapshot on each request (no
 * per-file registration, so no hidden cap).
 *
 * @module
 */

import type { Catalog, Skill, SkillFile } from "../../skills/skill.ts";
import {
  type ListResourcesResult,
  ProtocolError,
  ProtocolErrorCode,
  type Resource,
} from "../sdk.ts";
import { describeSkillFile } from "./describe_resource.ts";
import {
  decodeResourceCursor,
  encodeResourceCursor,
  type ResourcePosition,
} from "./resource_cursor.ts";
import { assertClientString } from "../client_strings.ts";
import { foreignCursorMessage } from "../tools/cursor.ts";
import { lowerBound, upperBound } from "./served_file.ts";

/** Options of {@linkcode listResourcePage}. */
export interface ResourcePageOptions {
  /** The cursor the client sent, if any. */
  readonly cursor?: string | undefined;
  /** Entries per page; a positive integer. */
  readonly pageSize: number;
}

/**
 * Lists the page of skill-file resources that follows `cursor`.
 *
 * @param catalog The snapshot the request works on.
 * @param options The client's cursor and the page size.
 * @returns `{resources, nextCursor?}`: at most `pageSize` entries strictly
 *   after the cursor's (skill name, file path); `nextCursor` is present
 *   exactly when more entries follow. A cursor whose skill or file is gone
 *   continues at the next entry in order.
 * @throws {ProtocolError} -32602 when the cursor is over MAX_CURSOR_CHARS (8,192)
 *   or not one this server issued.
 * @throws {RangeError} When `pageSize` is not a positive integer.
 *
 * Source: MCP 2025-11-25, "Pagination" and "Resources".
 */
export function listResourcePage(
  catalog: Catalog,
  options: ResourcePageOptions,
): ListResourcesResult {
  const { pageSize } = options;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new RangeError(`Option pageSize must be a positive integer (got "${pageSize}")`);
  }
  let skillIndex = 0;
  let fileIndex = 0;
  if (options.cursor !== undefined) {
    assertClientString("cursor", "The cursor", options.cursor);
    const after = decodeResourceCursor(options.cursor);
    if (after === null) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        foreignCursorMessage("resources/list"),
      );
    }
    skillIndex = lowerBound(catalog.skills, after.name, (skill) => skill.name);
    const skill = catalog.skills[skillIndex];
    if (skill !== undefined && skill.name === after.name) {
      fileIndex = upperBound(skill.files, after.path, (file) => file.path);
    }
  }
  const resources: Resource[] = [];
  let last: ResourcePosition | null = null;
  let hasMore = false;
  scan: for (let s = skillIndex; s < catalog.skills.length; s++) {
    const skill = catalog.skills[s] as Skill;
    for (let f = s === skillIndex ? fileIndex : 0; f < skill.files.length; f++) {
      if (resources.length === pageSize) {
        hasMore = true;
        break scan;
      }
      const file = skill.files[f] as SkillFile;
      resources.push(describeSkillFile(skill, file));
      last = { name: skill.name, path: file.path };
    }
  }
  return hasMore && last !== null
    ? { resources, nextCursor: encodeResourceCursor(last) }
    : { resources };
}
