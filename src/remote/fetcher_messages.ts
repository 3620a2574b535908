/**
 * The only messages between the trusted part and the fetcher worker.
 * Plain data (structured clone); the worker re-parses every spec it is
 * given rather than trusting the object.
 *
 * @module
 */

import type { FetchOutcome } from "./fetch_source.ts";
import type { GitHubEndpoints } from "./github_hosts.ts";
import type { LockedSource } from "./lock_file.ts";
import type { RemoteCaps } from "./remote_caps.ts";

/** One source to fetch. */
export interface FetchOrder {
  /** The spec as the owner wrote it (re-parsed in the worker). */
  readonly given: string;
  readonly locked: LockedSource | null;
  readonly update: boolean;
  readonly checkForUpdate: boolean;
  /** Fetch the commit again although the cache records it (its copy no longer matches). */
  readonly refetch?: boolean;
}

/** Trusted part -> fetcher: fetch these sources, one after another. */
export interface FetchMessage {
  readonly type: "fetch";
  readonly id: number;
  readonly endpoints: GitHubEndpoints;
  readonly cacheDir: string;
  readonly caps: RemoteCaps;
  /** Origins publisher sources may fetch from (`--well-known-allow`, normalised). */
  readonly publisherOrigins: readonly string[];
  readonly orders: readonly FetchOrder[];
}

/** Fetcher -> trusted part: the outcomes, in order. */
export interface OutcomesMessage {
  readonly type: "outcomes";
  readonly id: number;
  readonly outcomes: readonly FetchOutcome[];
}

/** Fetcher -> trusted part: the request could not be carried out at all. */
export interface FetcherErrorMessage {
  readonly type: "error";
  readonly id: number;
  readonly message: string;
}
