/**
 * The MCP skills extension (`io.modelcontextprotocol/skills`, SEP-2640) for
 * protocol 2025-11-25 clients: `skills/list`, `skills/get` and
 * `resources/directory/read`, registered on the SDK's low-level server with
 * zod request schemas of our own (SDK 1.32 does not know these methods).
 * Answers carry no `ttlMs`, `cacheScope` or `resultType`: those belong to
 * 2026-07-28 requests, which SDK 1.32 does not serve.
 *
 * @module
 */

import * as z from "zod";
import { type HandlerContext, ProtocolError, ProtocolErrorCode, type Server } from "../sdk.ts";
import { extensionCacheFields } from "../cache_hints.ts";
import type { Config } from "../../config/config.ts";
import type { MethodFamily } from "../family.ts";
import { upperBound } from "../resources/served_file.ts";
import { decodeNameCursor, encodeNameCursor, foreignCursorMessage } from "../tools/cursor.ts";
import { issueClause } from "../invalid_params.ts";
import { createDigestCache, type DigestCache } from "./digest_cache.ts";
import { directoryChildren, quoteUri, resolveDirectory } from "./directory.ts";
import {
  type ExtensionView,
  extensionView,
  isEntryBuilt,
  isLeftOutForNow,
  isManifestComplete,
  skillEntries,
  type SkillEntry,
} from "./entries.ts";
import type { CatalogStore } from "../../skills/catalog_store.ts";
import type { Skill } from "../../skills/skill.ts";
import { MAX_CURSOR_CHARS, MAX_URI_CHARS } from "../../caps.ts";

/** The extension's identifier in `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";
/** Skills per `skills/list` page. */
export const SKILLS_PAGE_SIZE = 50;
/**
 * Pages after an answered `skills/list` page whose files are hashed before
 * they are asked for (issue 13). A few, so the worker keeps hashing while
 * the answer travels and the client asks again, and an abandoned listing
 * costs at most these pages' reads.
 */
export const HASH_AHEAD_PAGES = 1;
/** Children per `resources/directory/read` page. */
export const DIRECTORY_PAGE_SIZE = 200;

const looseParams = z.looseObject({}).optional();

/**
 * The params check the SDK runs for our custom methods (`skills/list`,
 * `skills/get`, `resources/directory/read`): any object; each handler parses
 * its own params below, so the errors are ours.
 */
const anyParams = { params: looseParams };

// Caps on client strings: src/caps.ts (checked before any lookup; lookups are Maps).
const listParams = z.object({ cursor: z.string().max(MAX_CURSOR_CHARS).optional() });
const getParams = z.object({ uri: z.string().max(MAX_URI_CHARS) });
const directoryParams = z.object({
  uri: z.string().max(MAX_URI_CHARS),
  cursor: z.string().max(MAX_CURSOR_CHARS).optional(),
});

/** One digest cache for every server of the process: it is keyed by skill, path and file version. */
const sharedDigests: DigestCache = createDigestCache();

/**
 * The process's digest cache, the one every server's `skills/list` uses: the
 * worker's digest helper stores the digest isolate's answers in it (issue 13).
 *
 * @returns The cache.
 */
export function sharedDigestCache(): DigestCache {
  return sharedDigests;
}

/**
 * The counters of the process's digest cache, for tests and benchmarks.
 *
 * @returns Files hashed and resolved so far, and entries held, by every server of the process.
 */
export function sharedDigestCounts(): {
  hashed: number;
  hashedElsewhere: number;
  resolved: number;
  size: number;
} {
  return {
    hashed: sharedDigests.hashed,
    hashedElsewhere: sharedDigests.hashedElsewhere,
    resolved: sharedDigests.resolved,
    size: sharedDigests.size,
  };
}

/** The skills-extension family: declares the extension (with `directoryRead`) and `resources`. */
export const skillsExtensionFamily: MethodFamily = {
  name: "skills-extension",
  capabilities: () => ({
    extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } },
    // SEP-2640: a server declaring the extension MUST declare `resources`.
    resources: {},
  }),
  install: (server, context) =>
    serveSkillsExtension(server, context.store, sharedDigests, context.config),
};

/**
 * Registers the three methods of the skills extension.
 *
 * @param server The low-level SDK server.
 * @param store Where each request reads its snapshot (once, at its start).
 * @param digests The digest cache for manifests.
 * @throws {ProtocolError} From the handlers: -32602 for bad params, a cursor this
 *   server did not issue, a URI that is not a served skill (`skills/get`) or
 *   not a served directory (`resources/directory/read`).
 *
 * Requires `--allow-read` on the skill folders (digests).
 *
 * Source: SEP-2640 final text, "Listing Skills", "Getting a Skill",
 * "Reading Directories", "Error Handling".
 */
export function serveSkillsExtension(
  server: Server,
  store: CatalogStore,
  digests: DigestCache,
  config?: Config,
): void {
  // ttlMs/cacheScope on 2026-07-28 requests only (src/mcp/cache_hints.ts).
  const cache = (ctx: HandlerContext) =>
    config === undefined ? {} : extensionCacheFields(ctx, config);
  server.setRequestHandler("skills/list", anyParams, async (raw, ctx) => {
    const params = parseParams(listParams, raw);
    const view = extensionView(store.current());
    let start = 0;
    if (params.cursor !== undefined) {
      const after = decodeNameCursor("skills/list", params.cursor);
      if (after === null) throw invalid(foreignCursorMessage("skills/list"));
      start = upperBound(view.uris, after, (uri) => uri);
    }
    const page = view.skills.slice(start, start + SKILLS_PAGE_SIZE);
    const built = await skillEntries(page, digests);
    // A file not read only for a moment's reason (no descriptor free, the location check not
    // answered in time; through every try) changed nothing: no refresh will bring its skill
    // back, so leaving it out would tell the client the skill is gone. The page is refused
    // instead, and asked again reads the file again (s11-hG).
    const forNow = built.filter(isLeftOutForNow);
    if (forNow.length > 0) throw notReadNow(forNow.map((entry) => entry.uri));
    // An entry a file was left out of is not sent (SEP-2640: `resources` MUST be complete; a
    // partial listing is allowed): the next listing, after the refresh, lists the skill again.
    const skills: SkillEntry[] = built.filter(isManifestComplete);
    const end = start + page.length;
    hashAhead(view.skills.slice(end, end + HASH_AHEAD_PAGES * SKILLS_PAGE_SIZE), digests);
    const last = view.uris[end - 1];
    return end < view.skills.length && last !== undefined
      ? { skills, nextCursor: encodeNameCursor("skills/list", last), ...cache(ctx) }
      : { skills, ...cache(ctx) };
  });

  server.setRequestHandler("skills/get", anyParams, async (raw, ctx) => {
    const params = parseParams(getParams, raw);
    const view = extensionView(store.current());
    const skill = view.byUri.get(params.uri);
    if (skill === undefined) throw invalid(notListedMessage(view, params.uri));
    const [entry] = await skillEntries([skill], digests);
    if (entry !== undefined && isLeftOutForNow(entry)) throw notReadNow([entry.uri]);
    if (entry !== undefined && !isManifestComplete(entry)) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `A file of ${
          quoteUri(params.uri)
        } changed while its manifest was built (it vanished, became unreadable ` +
          "or a link), so no complete entry can be given now; ask again after the server's " +
          "next list_changed notification (its refresh follows within seconds)",
      );
    }
    return { skill: entry, ...cache(ctx) };
  });

  server.setRequestHandler("resources/directory/read", anyParams, (raw, ctx) => {
    const params = parseParams(directoryParams, raw);
    const directory = resolveDirectory(store.current(), params.uri);
    if ("reason" in directory) throw invalid(directory.reason);
    const children = directoryChildren(directory);
    // One directory's cursor is not read against another's children: tagged by the directory
    // resolved (any spelling of its URI), in 8 hex digits so the cursor stays short.
    const directoryList = `resources/directory/read ${
      shortHash(`${directory.skill.name}\0${directory.path}`)
    }` as const;
    let start = 0;
    if (params.cursor !== undefined) {
      const after = decodeNameCursor(directoryList, params.cursor);
      if (after === null) throw invalid(foreignCursorMessage("resources/directory/read"));
      start = upperBound(children, after, (child) => child.name);
    }
    const resources = children.slice(start, start + DIRECTORY_PAGE_SIZE);
    const last = resources.at(-1);
    return Promise.resolve(
      start + resources.length < children.length && last !== undefined
        ? { resources, nextCursor: encodeNameCursor(directoryList, last.name), ...cache(ctx) }
        : { resources, ...cache(ctx) },
    );
  });
}

/**
 * Hashes the pages after the one just answered while the client reads it and
 * asks for the next (issue 13: a client paging through a cold catalog waited
 * for every page's files in turn). Only the {@linkcode HASH_AHEAD_PAGES}
 * pages a client's cursor leads to next, once per answered page: nothing is
 * read before a client lists. The
 * files go through the same digest cache (the gate, the same keys); the
 * request for that page awaits the files still in flight instead of reading
 * them again.
 *
 * @param skills The next pages' skills (empty after the last page).
 * @param digests The digest cache.
 *
 * Requires `--allow-read` on the skill folders.
 */
function hashAhead(skills: readonly Skill[], digests: DigestCache): void {
  // A page whose digests are all in memory already costs nothing (a repeated listing).
  const unhashed = skills.filter((skill) =>
    !isEntryBuilt(skill, digests) &&
    skill.files.some((file) => !digests.holds(skill.realDir, file))
  );
  if (unhashed.length === 0) return;
  void skillEntries(unhashed, digests, { logsLeftOut: false }).catch(() => {});
}

function parseParams<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalid(
    `Invalid params: ${
      issueClause(
        (issue?.path ?? []).filter((key) => typeof key !== "symbol"),
        issue?.message ?? "not accepted",
      )
    }`,
  );
}

/**
 * The error for entries a file was left out of for a moment's reason (a
 * descriptor shortage, an unanswered location check: `isLeftOutForNow`):
 * -32603 naming at most three of their URIs (never a host path), saying to
 * ask again.
 */
function notReadNow(uris: readonly string[]): ProtocolError {
  const named = uris.slice(0, 3).map(quoteUri).join(", ");
  const more = uris.length > 3 ? ` and ${uris.length - 3} more` : "";
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The server could not read or check a file of ${named}${more} now (no file descriptor ` +
      "was free, or the check did not answer in time), so no complete entry can be given now; " +
      "ask again (the files are read again then)",
  );
}

/**
 * Why `skills/get` has no entry for `uri`: no skill is served there, or the
 * skill is served but the extension leaves it out; then the rule it breaks
 * and the doors that still serve it (review s15 L6: "No skill is served"
 * was said of a skill the tools served). Names no host path.
 */
function notListedMessage(view: ExtensionView, uri: string): string {
  const excluded = view.excludedByUri.get(uri);
  if (excluded === undefined) return `No skill is served at ${quoteUri(uri)}`;
  return `Skill "${excluded.name}" is served, but not through the MCP skills extension ` +
    `(skills/list, skills/get), because ${excluded.why}. Read it with resources/read at ` +
    `${quoteUri(uri)} (its files at the URIs beside it), or with the skill_load and ` +
    "skill_file tools where the server offers them";
}

function invalid(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/** FNV-1a, 32 bits, as 8 hex digits: tells directories' cursors apart (not a security check). */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
