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
import { AnswerBudgetBusyError, answerBytesFor, answerBytesForText } from "../answer_budget.ts";
import { ProtocolError, type ReadResourceResult } from "../sdk.ts";
import { readServedFile, servedContents } from "./read_served_file.ts";
import { resourceNotFound, resourceTooLarge } from "./resource_errors.ts";
import { findServedFile, type ServedFile } from "./served_file.ts";
import { catalogPrefixes, parseSkillUri, skillFileUri } from "./skill_uri.ts";

/** JSON-RPC code of a read refused because the answer budget stayed spent (retry later). */
export const JSONRPC_SERVER_BUSY = -32000;

/**
 * Finds the served file a URI names.
 *
 * @param catalog The snapshot the request works on.
 * @param uri The URI as the client sent it.
 * @returns The skill, the listed file and the file's canonical URI.
 * @throws {ProtocolError} -32002 when the URI does not parse as a skill file URI
 *   or names a skill or file the catalog does not list.
 */
export function resolveResourceUri(
  catalog: Catalog,
  uri: string,
): ServedFile & { readonly uri: string } {
  const parsed = parseSkillUri(uri, catalogPrefixes(catalog));
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
 * @param options `maxBytes`: the largest file returned, in bytes. `hold`:
 *   reserves the answer's bytes in the answer budget before the read
 *   (estimated from the listed size, topped up when the file grew) and
 *   returns the release, called when this returns.
 * @returns `{contents: [{uri, mimeType, text | blob}]}` with the canonical
 *   URI (as listed): `text` when the bytes decode strictly as UTF-8 and hold
 *   no NUL (a BOM is kept), else `blob` (standard base64 of the exact bytes).
 * @throws {ProtocolError} -32002 when the URI is not served or the path gate
 *   refuses the file now (e.g. it became a symlink leading outside the skill
 *   after it was listed); -32602 when the file is over `maxBytes`; -32000
 *   when the answer budget stayed spent for the whole wait (retry later).
 *
 * Requires `--allow-read` on the skill folder.
 *
 * Source: MCP 2025-11-25, "Resources" (text or blob contents); SEP-2640
 * (`resources/read` returns the exact bytes).
 */
export async function readSkillResource(
  catalog: Catalog,
  uri: string,
  options: { maxBytes: number; hold?: (bytes: number) => Promise<() => void> },
): Promise<ReadResourceResult> {
  const served = resolveResourceUri(catalog, uri);
  const { file } = served;
  const hold = options.hold ?? (() => Promise.resolve(() => {}));
  const releases: (() => void)[] = [];
  try {
    const estimated = answerBytesFor(Math.min(file.size, options.maxBytes));
    releases.push(await holdOrBusy(hold, estimated));
    const bytes = await readServed(served, uri, options.maxBytes);
    const contents = servedContents(served.uri, mediaTypeFor(file.path), bytes);
    // Top up to the answer's real size: the file grew, or its text escapes to more.
    const actual = "text" in contents ? answerBytesForText(bytes) : answerBytesFor(bytes.length);
    if (actual > estimated) releases.push(await holdOrBusy(hold, actual - estimated));
    return { contents: [contents] };
  } finally {
    for (const release of releases) release();
  }
}

async function holdOrBusy(
  hold: (bytes: number) => Promise<() => void>,
  bytes: number,
): Promise<() => void> {
  try {
    return await hold(bytes);
  } catch (error) {
    if (error instanceof AnswerBudgetBusyError) {
      throw new ProtocolError(JSONRPC_SERVER_BUSY, error.message);
    }
    throw error;
  }
}

async function readServed(
  served: ServedFile & { readonly uri: string },
  uri: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const { skill, file } = served;
  try {
    return await readServedFile(skill, file.path, maxBytes);
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
}
