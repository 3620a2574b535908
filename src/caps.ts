/**
 * Every cap skillgate enforces, in one place. Units are in the names. The
 * configurable ones can be changed through `Config.caps` (see
 * `src/config/config.ts`); the rest are fixed because a protocol or the
 * safety argument depends on them.
 *
 * @module
 */

/** Caps that an owner may change through options or `SKILLGATE_*` variables. */
export interface Caps {
  /** Most skills served across all roots. @default 10000 */
  readonly maxSkills: number;
  /** Most files listed per skill (SKILL.md included). @default 2000 */
  readonly maxFilesPerSkill: number;
  /** Most folders walked per skill. @default 2000 */
  readonly maxFoldersPerSkill: number;
  /** Bytes of SKILL.md read; beyond it the body is truncated and says so. @default 262144 (256 KiB) */
  readonly maxSkillMdBytes: number;
  /** Bytes one `skill_file` entry returns before it is truncated. @default 1048576 (1 MiB) */
  readonly maxFileEntryBytes: number;
  /** Bytes one `skill_file` call may return in all, decided from stat. @default 4194304 (4 MiB) */
  readonly maxCallBytes: number;
}

/** The defaults of {@linkcode Caps}. */
export const DEFAULT_CAPS: Caps = Object.freeze({
  maxSkills: 10_000,
  maxFilesPerSkill: 2_000,
  maxFoldersPerSkill: 2_000,
  maxSkillMdBytes: 256 * 1024,
  maxFileEntryBytes: 1024 * 1024,
  maxCallBytes: 4 * 1024 * 1024,
});

/** Bytes of frontmatter parsed at most (between the `---` lines). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Entries in one `skill_file` call. */
export const MAX_FILE_ENTRIES_PER_CALL = 8;
/** Characters in one relative path handed to the path gate. */
export const MAX_PATH_CHARS = 1024;
/** Folder levels below a root (or its `skills/` container) searched for skills. */
export const MAX_GROUP_DEPTH = 3;
/**
 * Folder levels looked at below the group-depth cap, only to report skills
 * there (`depth-limit`), never to serve them (review n7: a silent cut).
 */
export const DEPTH_PROBE_LEVELS = 2;
/** Folders read at most per root by that look beyond the cap. */
export const DEPTH_PROBE_MAX_FOLDERS = 256;
/** Default page of `skill_list`. */
export const DEFAULT_LIST_LIMIT = 100;
/** Largest page of `skill_list`. */
export const MAX_LIST_LIMIT = 1_000;
/** Characters of a `skill_list` query. */
export const MAX_QUERY_CHARS = 256;
/** Characters of a `skill_search` query. */
export const MAX_SEARCH_QUERY_CHARS = 512;
/** Default number of `skill_search` results. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Most `skill_search` results in one answer. */
export const MAX_SEARCH_LIMIT = 100;
/** Bytes `resources/read` returns whole at most; a larger file is refused, never cut (16 MiB). */
export const MAX_RESOURCE_READ_BYTES = 16 * 1024 * 1024;
/** Entries in one `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 500;
/** Entries in one `prompts/list` page. */
export const PROMPT_PAGE_SIZE = 1_000;
/** Values in one `completion/complete` answer (the MCP limit). */
export const MAX_COMPLETION_VALUES = 100;

// Client strings that reach a lookup (src/mcp/client_strings.ts). Each is
// refused at once beyond its cap, with an error that names the cap; lookups
// are indexes (a Map by name, binary search by path), never a scan.

/**
 * Characters of a skill or prompt name a client sends. A served name is a
 * directory name of at most 255 UTF-8 bytes, hence at most 255 UTF-16 code
 * units; the Agent Skills spec allows 64 characters, and longer directory
 * names are still served (with a warning), so the cap is 255.
 */
export const MAX_CLIENT_NAME_CHARS = 255;
/**
 * Characters of a name that error suggestions are computed for. Beyond it a
 * miss suggests nothing (no substring scan for a long string). The Agent
 * Skills spec's name limit: 64.
 */
export const MAX_SUGGESTION_NEEDLE_CHARS = 64;
/** Characters of a pagination cursor (our cursors stay far below: name + path, base64). */
export const MAX_CURSOR_CHARS = 8 * 1024;
/** Characters of a resource URI. */
export const MAX_URI_CHARS = 8 * 1024;
/** Characters of a `completion/complete` argument value (a name or a path). */
export const MAX_COMPLETION_VALUE_CHARS = MAX_PATH_CHARS;
/**
 * Resource subscriptions one session (one server) holds at most; each is a
 * served file's URI, so without it one session could hold every URI of a
 * 10,000-skill catalog. 1,024.
 */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1_024;
/** Characters of a tool name in `tools/call`. */
export const MAX_TOOL_NAME_CHARS = 128;

// HTTP transport (src/transports/http/). Fixed: they bound what one peer can
// make the server hold, and the safety argument in ARCHITECTURE.md uses them.

/**
 * Bytes of one HTTP request body read at most; beyond, 413, answered from
 * `Content-Length` before a byte is read, or as soon as a chunked body
 * passes it, so an oversized body is never decoded or parsed. 256 KiB.
 *
 * Derived from the largest request a client can legitimately send once every
 * client string has its cap (above, `src/scripts/prepare_run.ts` and each
 * tool's schema): `skill_run` with 64 arguments of 8 KiB in all, a 255-char
 * name, a 1,024-char script path and a 512-char confirmation token, or
 * `skill_file` with 8 paths of 1,024 chars, or a cursor or URI of 8,192
 * chars, is at most about 64 KiB even when every character is JSON-escaped
 * as `\uXXXX` (6 bytes). Nothing skillgate accepts carries file content from
 * the client (answers to elicitation are a boolean form). 256 KiB leaves
 * four times that for a 2025-03-26 batch and `_meta`. The cap bounds the
 * CPU one request can cost the worker (decode and JSON parse, and the
 * garbage they leave): with 4 MiB bodies, four senders kept it busy parsing
 * 145 MiB/s and stalled every other client for 40 to 80 ms per full GC.
 */
export const MAX_HTTP_BODY_BYTES = 256 * 1024;
/**
 * How long one HTTP request body may take to arrive in all; beyond, 408 and
 * the request's slot is freed (a slow sender cannot hold slots forever). 30 s.
 */
export const HTTP_BODY_TIMEOUT_MS = 30_000;
/** MCP requests in flight across all sessions; beyond, 503 with Retry-After. */
export const MAX_HTTP_REQUESTS_IN_FLIGHT = 256;
/** MCP requests in flight in one session; beyond, 429 with Retry-After. */
export const MAX_HTTP_REQUESTS_PER_SESSION = 32;
/**
 * Live HTTP sessions. A new session is always admitted: when the table is
 * full, the least-recently-used session with nothing in flight is closed for
 * it (of the client unit holding the most sessions, see
 * `src/transports/http/client_unit.ts`). Must stay above
 * MAX_HTTP_REQUESTS_IN_FLIGHT + MAX_HTTP_BODY_READS +
 * MAX_HTTP_BODY_READS_FOR_SESSIONS so one such session
 * always exists.
 */
export const MAX_HTTP_SESSIONS = 1_024;
/**
 * Live sessions one client unit may hold beyond loopback (an address; on
 * loopback without a token there is one unit and this share does not apply).
 * At its share, a unit's new session replaces its own least-recently-used
 * idle one. 64.
 */
export const MAX_HTTP_SESSIONS_PER_CLIENT = 64;
/**
 * MCP requests in flight of one client unit beyond loopback (an address);
 * beyond, 429 with Retry-After. On loopback there is one unit and this share
 * does not apply. 64.
 */
export const MAX_HTTP_REQUESTS_PER_CLIENT = 64;
/**
 * Standby streams (a 2025-era session `GET` stream, a 2026-07-28
 * `subscriptions/listen` stream) one client unit may hold open at once beyond
 * loopback; at it, the unit's oldest open one is closed for the new one (its
 * client opens it again). They are not requests in flight, so they hold no
 * slot of {@linkcode MAX_HTTP_REQUESTS_PER_CLIENT} (review r16, A6). On
 * loopback there is one unit and this share does not apply. 64.
 */
export const MAX_HTTP_STREAMS_PER_CLIENT = 64;
/**
 * Request bodies being read at once, apart from the requests in flight: a
 * slow body holds one of these and nothing else. When all are taken, a new
 * read waits in line (highest rank first, then first come first served);
 * a read that has been quiet for HTTP_BODY_STALL_MS (or trickles) gives its
 * slot to the line and is answered 408. 32.
 */
export const MAX_HTTP_BODY_READS = 32;
/**
 * Body slots beyond MAX_HTTP_BODY_READS that only a session's first body at
 * once may take, so a flood of sessionless bodies (`initialize` or junk)
 * never makes a working client wait. At most (MAX_HTTP_BODY_READS +
 * MAX_HTTP_BODY_READS_FOR_SESSIONS) x MAX_HTTP_BODY_BYTES (10 MiB) of bodies
 * are held. 8.
 */
export const MAX_HTTP_BODY_READS_FOR_SESSIONS = 8;
/**
 * How long a request body may stay quiet, in ms, before its read counts as
 * stalled and gives its slot to a read waiting in line (only then: with
 * nobody waiting, a quiet body keeps its slot up to HTTP_BODY_TIMEOUT_MS).
 * 100.
 */
export const HTTP_BODY_STALL_MS = 100;

// Memory budget of the HTTP worker. V8's heap limit in the worker is about
// 4 GiB on a 64-bit host with 16 GiB or more (4,192 MiB measured under Deno
// 2.9.6); the budgets below add up to well under 1 GiB.

/** Events kept per session for resumable SSE at most. */
export const MAX_STORED_EVENTS = 1_000;
/** UTF-8 bytes of stored SSE events one session keeps at most. 4 MiB. */
export const MAX_STORED_EVENT_BYTES_PER_SESSION = 4 * 1024 * 1024;
/**
 * UTF-8 bytes of stored SSE events across ALL sessions; beyond, the oldest
 * event of any session is dropped first. 256 MiB.
 */
export const MAX_STORED_EVENT_BYTES_TOTAL = 256 * 1024 * 1024;
/**
 * UTF-8 bytes one SSE event may take and still be kept for resumption; a
 * larger answer is kept as a short error asking to send the request again.
 * 1 MiB.
 */
export const MAX_STORED_EVENT_BYTES_EACH = 1024 * 1024;
/** Bytes counted per stored event on top of its message (ids, links). */
export const STORED_EVENT_OVERHEAD_BYTES = 256;
/**
 * Bytes of large answers (`resources/read`, `skill_file` over
 * SMALL_ANSWER_BYTES) being built or sent at once, across all clients,
 * estimated before reading (base64 size, or a text's JSON-escaped size); a
 * request beyond it waits its turn, first come first served. A 16 MiB file
 * needs about 21.4 MiB, and building one answer briefly takes about four
 * times its size of heap (bytes, base64, JSON, SSE frame), so this holds the
 * heap used for answers near 256 MiB. 64 MiB.
 */
export const MAX_ANSWER_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
/**
 * Answers up to this size use their own lane of
 * MAX_SMALL_ANSWER_BYTES_IN_FLIGHT, so ordinary reads never wait behind a
 * flood of 16 MiB ones. 1 MiB (plus the envelope).
 */
export const SMALL_ANSWER_BYTES = 1024 * 1024 + 1024;
/** Bytes of small answers being built or sent at once (their own lane). 32 MiB. */
export const MAX_SMALL_ANSWER_BYTES_IN_FLIGHT = 32 * 1024 * 1024;
/**
 * How long a large answer waits for room in MAX_ANSWER_BYTES_IN_FLIGHT
 * before it is refused with a "server busy, retry" error. 20 s.
 */
export const ANSWER_WAIT_TIMEOUT_MS = 20_000;
/** An HTTP session with nothing in flight and no open stream is closed after this long. 30 min. */
export const HTTP_SESSION_IDLE_MS = 30 * 60 * 1000;
/**
 * TCP connections the HTTP server holds open at once. At the cap a new
 * connection replaces the one idle longest (no request in progress), else a
 * standby event stream (least recently active session first), else the
 * longest-arriving unfinished body; when every one has other work in
 * progress, the new one is closed at accept (src/transports/http/connections.ts).
 */
export const MAX_HTTP_CONNECTIONS = 1_024;
/**
 * How long a client may take to send a request's headers, from the moment
 * its connection opens (or its previous answer ended), in ms; beyond, 408
 * and the connection is closed. Checked every
 * {@linkcode HTTP_CONNECTION_CHECK_INTERVAL_MS}. 10 s.
 */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;
/**
 * How long one whole request (headers and body) may take to arrive, in ms;
 * node:http's backstop behind the body deadline ({@linkcode HTTP_BODY_TIMEOUT_MS}),
 * which answers first. Does not limit an answer (an SSE stream may last). 40 s.
 */
export const HTTP_REQUEST_TIMEOUT_MS = HTTP_HEADERS_TIMEOUT_MS + HTTP_BODY_TIMEOUT_MS;
/** How often header and request timeouts are checked, in ms (their granularity). 1 s. */
export const HTTP_CONNECTION_CHECK_INTERVAL_MS = 1_000;
/**
 * How long a kept-alive connection may sit idle between requests, in ms,
 * before it is closed (node:http adds its own 1 s margin). 5 s.
 */
export const HTTP_KEEP_ALIVE_IDLE_MS = 5_000;
/**
 * How long an answer's bytes may make no progress into the connection, in
 * ms, while some are waiting to be written: the client stopped reading. The
 * connection is then closed, which ends the answer and releases what it held
 * (its answer-budget reservation, its request slot). A client that reads,
 * however slowly, is never cut by it; an idle SSE stream is not either (its
 * few keep-alive bytes always fit the socket buffer). Loopback buffers hold
 * about 4 MiB unread, so in practice only answers larger than that can stall.
 * 30 s.
 */
export const HTTP_WRITE_STALL_TIMEOUT_MS = 30_000;
/** Bytes of one request's line and headers together; beyond, 431 and the connection closes. 16 KiB. */
export const MAX_HTTP_HEADER_BYTES = 16 * 1024;
/** First wait after a failed accept (`EMFILE`, ...), in ms; doubles per failure in a row. */
export const HTTP_ACCEPT_BACKOFF_MIN_MS = 5;
/** Longest wait between retries of a failing accept, in ms. 1 s. */
export const HTTP_ACCEPT_BACKOFF_MAX_MS = 1_000;
/**
 * How long a graceful shutdown waits for in-flight HTTP requests, in ms; then
 * every connection still open is closed. Requests whose body is still
 * arriving are not waited for (no work started: they are cut at once). 30 s.
 */
export const HTTP_DRAIN_TIMEOUT_MS = 30_000;
/**
 * Seconds a refused client is told to wait (`Retry-After`) at least; the
 * handler sends a longer, truthful estimate when it has one (see
 * `src/transports/http/retry_after.ts`).
 */
export const HTTP_RETRY_AFTER_SECONDS = 1;
/** Seconds any `Retry-After` says at most. */
export const MAX_HTTP_RETRY_AFTER_SECONDS = 60;
/** Characters an HTTP bearer token needs at least. */
export const MIN_HTTP_TOKEN_CHARS = 16;
/** Characters `MCP_CONFIRM_SECRET` (the shared confirmation HMAC key) needs at least. */
export const MIN_CONFIRM_SECRET_CHARS = 16;
/** Bytes of an HTTP token file read at most. */
export const MAX_HTTP_TOKEN_FILE_BYTES = 4 * 1024;
