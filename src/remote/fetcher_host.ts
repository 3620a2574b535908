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
  return {
    fetch(orders) {
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
    },
    close() {
      worker.terminate();
      failAll(new Error("The fetcher was closed"));
    },
  };
}
