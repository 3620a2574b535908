/**
 * `resources/read` of a skill file: the exact bytes, whole, as text when they
 * are strictly UTF-8 without NUL and as base64 otherwise.
 *
 * @module
 */

import { FileTooLargeError } from "../../files/bounded_read.ts";
import { mediaTypeFor } from "../../files/media_type.ts";
import { PathRefusedError } from "../../files/path_gate.ts";
import type { Catalog } from "../../skills/skill.ts";
import type { ReadResourceResult } from "../sdk.ts";
import { readServedFile, servedContents } from "./read_served_file.ts";
import { resourceNotFound, resourceTooLarge } from "./resource_errors.ts";
import { findServedFile, type ServedFile } from "./served_file.ts";
import { parseSkillUri, skillFileUri } from "./skill_uri.ts";

/**
 * Finds the served file a URI names.
 *
 * @param catalog The snapshot the request works on.
 * @param uri The URI as the client sent it.
 * @returns The skill, the listed file and the file's canonical URI.
 * @throws {McpError} -32002 when the URI does not parse as a skill file URI
 *   or names a skill or file the catalog does not list.
 */
export function resolveResourceUri(
  catalog: Catalog,
  uri: string,
): ServedFile & { readonly uri: string } {
  const parsed = parseSkillUri(uri);
  if (!parsed.ok) throw resourceNotFound(uri, parsed.reason);
  const served = findServedFile(catalog, parsed.name, parsed.path);
  if ("reason" in served) {
    throw resourceNotFound(uri, `${served.reason}; call resources/list for the URIs served`);
  }
  return { ...served, uri: skillFileUri(served.skill.name, served.file.path) };
}

/**
 * Reads a skill file for `resources/read`.
 *
 * @param catalog The snapshot the request works on.
 * @param uri The URI as the client sent it.
 * @param options `maxBytes`: the largest file returned, in bytes.
 * @returns `{contents: [{uri, mimeType, text | blob}]}` with the canonical
 *   URI (as listed): `text` when the bytes decode strictly as UTF-8 and hold
 *   no NUL (a BOM is kept), else `blob` (standard base64 of the exact bytes).
 * @throws {McpError} -32002 when the URI is not served or the path gate
 *   refuses the file now (e.g. it became a symlink leading outside the skill
 *   after it was listed); -32602 when the file is over `maxBytes`.
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: MCP 2025-11-25, "Resources" (text or blob contents); SEP-2640
 * (`resources/read` returns the exact bytes).
 */
export async function readSkillResource(
  catalog: Catalog,
  uri: string,
  options: { maxBytes: number },
): Promise<ReadResourceResult> {
  const served = resolveResourceUri(catalog, uri);
  const { skill, file } = served;
  let bytes: Uint8Array;
  try {
    bytes = await readServedFile(skill, file.path, options.maxBytes);
  } catch (error) {
    if (error instanceof PathRefusedError) throw resourceNotFound(uri, error.message);
    if (error instanceof FileTooLargeError) {
      throw resourceTooLarge(uri, {
        name: skill.name,
        path: file.path,
        sizeBytes: error.sizeBytes,
        maxBytes: error.maxBytes,
      });
    }
    throw error;
  }
  return { contents: [servedContents(served.uri, mediaTypeFor(file.path), bytes)] };
}
