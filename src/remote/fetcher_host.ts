/**
 * Trusted side of the fetcher: starts `fetcher_entry.ts` as a worker with
 * exactly the fetcher's permission set and turns its messages into promises.
 * Requires `--unstable-worker-options`; the trusted part must hold every
 * permission it hands down.
 *
 * @module
 */

import { isolateEntryUrl } from "../entry_points.ts";
import { toWorkerOption, type WorkerPermissions } from "../sandbox/worker_permissions.ts";
import type { FetchOutcome } from "./fetch_source.ts";
import type {
  FetcherErrorMessage,
  FetchMessage,
  FetchOrder,
  OutcomesMessage,
} from "./fetcher_messages.ts";
import type { GitHubEndpoints } from "./github_hosts.ts";
import type { RemoteCaps } from "./remote_caps.ts";
import { escapeControls } from "./remote_error.ts";
import { parseRemoteSpec } from "./remote_source.ts";
import { privateCopyProblem, readState, sourceKey } from "./sources_cache.ts";

/** A running fetcher. */
export interface Fetcher {
  /**
   * Fetches the sources in order.
   *
   * @param orders The sources and what to do with each.
   * @returns One outcome per order.
   * @throws {Error} When the worker fails as a whole (crash, cache not writable).
   */
  fetch(orders: readonly FetchOrder[]): Promise<FetchOutcome[]>;
  /** Ends the worker; pending fetches reject. */
  close(): void;
}

/** Where the fetcher fetches from and into. */
export interface FetcherSetup {
  readonly endpoints: GitHubEndpoints;
  readonly cacheDir: string;
  readonly caps: RemoteCaps;
  /** Origins publisher sources may fetch from (`--well-known-allow`, normalised). @default [] */
  readonly publisherOrigins?: readonly string[];
  /**
   * Whether the fetcher fetches GitHub sources with a token (`GITHUB_TOKEN`
   * set and not empty, as the fetcher reads it). @default read from the
   * environment at each fetch
   */
  readonly hasToken?: () => boolean;
}

/**
 * Starts the fetcher worker.
 *
 * @param permissions Its set (from `computeFetcherPermissions()`).
 * @param setup Endpoints, cache folder, caps.
 * @param entry The worker module (tests pass a probe). @default `fetcher_entry.ts`
 * @returns The fetcher.
 */
export function startFetcher(
  permissions: WorkerPermissions,
  setup: FetcherSetup,
  entry: URL = isolateEntryUrl("fetcher"),
): Fetcher {
  const worker = new Worker(entry, {
    type: "module",
    name: "skillgate-fetcher",
    deno: { permissions: toWorkerOption(permissions) },
  });
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (outcomes: FetchOutcome[]) => void; reject: (error: Error) => void }
  >();
  const failAll = (error: Error) => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.onmessage = (event: MessageEvent<OutcomesMessage | FetcherErrorMessage>) => {
    const entry = pending.get(event.data?.id);
    if (entry === undefined) return;
    pending.delete(event.data.id);
    if (event.data.type === "outcomes") entry.resolve([...event.data.outcomes]);
    else entry.reject(new Error(`The fetcher failed: ${event.data.message}`));
  };
  worker.onerror = (event) => {
    event.preventDefault();
    failAll(new Error(`The fetcher stopped: ${event.message}`));
  };
  const send = (orders: readonly FetchOrder[]): Promise<FetchOutcome[]> => {
    const id = nextId++;
    const message: FetchMessage = {
      type: "fetch",
      id,
      endpoints: setup.endpoints,
      cacheDir: setup.cacheDir,
      caps: setup.caps,
      publisherOrigins: setup.publisherOrigins ?? [],
      orders,
    };
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(message);
    });
  };
  return {
    async fetch(orders) {
      // Checked here, in the trusted part (the fetcher may not read /etc/group or ask its uid),
      // before each fetch: a source whose copy would be readable by others is not sent at all.
      const refused = await refusedPrivateCopies(orders, setup);
      const sent = orders.filter((_, index) => !refused.has(index));
      const outcomes = sent.length === 0 ? [] : await send(sent);
      return orders.map((_, index) => refused.get(index) ?? outcomes.shift()!);
    },
    close() {
      worker.terminate();
      failAll(new Error("The fetcher was closed"));
    },
  };
}

/**
 * The GitHub sources of a fetch that must not be fetched into the sources
 * cache because a token is in use and the cache, or the source's folder in
 * it, may be read by other users (`privateCopyProblem`, review r14): each
 * with its failed outcome (reason `cache-readable`; the last good copy kept,
 * as for any failed fetch). None when no token is in use.
 *
 * @param orders The fetch's orders.
 * @param setup The cache folder, and whether a token is in use.
 * @returns Failed outcomes by the order's index.
 *
 * Requires `--allow-read` on the cache, `/etc/passwd` and `/etc/group`,
 * `--allow-env=GITHUB_TOKEN` and `--allow-sys` (the trusted part's `--allow-all`).
 */
async function refusedPrivateCopies(
  orders: readonly FetchOrder[],
  setup: FetcherSetup,
): Promise<Map<number, FetchOutcome>> {
  const refused = new Map<number, FetchOutcome>();
  const hasToken = setup.hasToken ?? (() => (Deno.env.get("GITHUB_TOKEN") ?? "") !== "");
  if (!orders.some((order) => order.given.startsWith("github:")) || !hasToken()) return refused;
  for (const [index, order] of orders.entries()) {
    let source;
    try {
      source = parseRemoteSpec(order.given);
    } catch {
      continue; // the fetcher reports it
    }
    if (source.kind !== "github") continue;
    const key = await sourceKey(source);
    const problem = privateCopyProblem(setup.cacheDir, key);
    if (problem === null) continue;
    const state = await readState(setup.cacheDir, key);
    const usable = state !== null && state.spec === source.spec ? state : null;
    refused.set(index, {
      spec: source.spec,
      status: "failed",
      commit: usable?.commit ?? null,
      skills: usable?.skills ?? null,
      changes: { added: [], removed: [], changed: [] },
      updateAvailable: null,
      failure: { reason: "cache-readable", message: escapeControls(problem) },
    });
  }
  return refused;
}
