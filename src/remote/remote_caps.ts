/**
 * The caps every remote fetch enforces: bytes downloaded, archive members,
 * unpacked bytes, one member's bytes, redirects and time. Units are in the
 * names. The owner may change them through options (`src/config/options.ts`);
 * these are the defaults.
 *
 * @module
 */

/** Caps on one source's fetch (resolve + download + extract). */
export interface RemoteCaps {
  /** Bytes of the compressed tarball downloaded at most. @default 67108864 (64 MiB) */
  readonly maxArchiveBytes: number;
  /** Bytes the tarball may unpack to (headers included), counted as it inflates. @default 268435456 (256 MiB) */
  readonly maxUnpackedBytes: number;
  /** Archive members (files, folders, headers) at most. @default 20000 */
  readonly maxMembers: number;
  /** Bytes of one extracted file at most (the largest file `resources/read` serves). @default 16777216 (16 MiB) */
  readonly maxMemberBytes: number;
  /** Milliseconds one source's fetch may take in all. @default 120000 */
  readonly fetchTimeoutMs: number;
}

/** The defaults of {@linkcode RemoteCaps}. */
export const DEFAULT_REMOTE_CAPS: RemoteCaps = Object.freeze({
  maxArchiveBytes: 64 * 1024 * 1024,
  maxUnpackedBytes: 256 * 1024 * 1024,
  maxMembers: 20_000,
  maxMemberBytes: 16 * 1024 * 1024,
  fetchTimeoutMs: 120_000,
});

/** Redirect hops followed at most per request (GitHub answers a tarball with one). */
export const MAX_REDIRECTS = 5;
/** Bytes of an API answer read at most (a commit SHA, an error document). */
export const MAX_API_ANSWER_BYTES = 64 * 1024;
/** Bytes of a `state.json` or lock file read at most. */
export const MAX_STATE_BYTES = 32 * 1024 * 1024;
