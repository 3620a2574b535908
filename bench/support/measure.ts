/**
 * The measuring loops every section shares: start-up over repeated spawns,
 * request latency over repeated calls on one session, and full cursor paging.
 * Warm-up runs come first and are not counted.
 *
 * @module
 */

import { readTreeRss } from "./process_rss.ts";
import type { ChildCommand, Notification, RpcChild } from "./rpc_client.ts";
import { openSession } from "./servers.ts";
import { summarise, type Summary } from "./stats.ts";

/** Start-up figures over several spawns. */
export interface StartupFigures {
  /** Spawn to the `initialize` answer, in ms. */
  readonly startupMs: Summary;
  /** RSS of the process tree right after the `initialize` answer, in MiB (null without `/proc`). */
  readonly rssMib: Summary | null;
  /** The `initialize` result of the last spawn. */
  readonly initialize: Readonly<Record<string, unknown>>;
}

/**
 * Spawns `command` `warmups + spawns` times, one at a time; each spawn sends
 * `initialize`, records the time to its answer and the tree's RSS, then
 * closes stdin and waits for the exit.
 *
 * @param command What to spawn.
 * @param options `spawns` counted (at least 1), `warmups` not counted
 *   (default 1), and `onProgress` called after each spawn.
 * @returns Summaries of start-up time and RSS.
 * @throws {Error} When a spawn fails to answer `initialize`.
 *
 * Requires `--allow-all` (spawning and reading `/proc`).
 */
export async function measureStartup(
  command: ChildCommand,
  options: { spawns: number; warmups?: number; onProgress?: (done: number) => void },
): Promise<StartupFigures> {
  const times: number[] = [];
  const rss: number[] = [];
  let initialize: Readonly<Record<string, unknown>> = {};
  const warmups = options.warmups ?? 1;
  for (let run = 0; run < warmups + options.spawns; run++) {
    const session = await openSession(command);
    const tree = await readTreeRss(session.child.pid);
    await session.child.close();
    if (run < warmups) continue;
    times.push(session.startupMs);
    if (tree !== null) rss.push(tree.rssKib / 1024);
    initialize = session.initialize;
    options.onProgress?.(run - warmups + 1);
  }
  return {
    startupMs: summarise(times),
    rssMib: rss.length > 0 ? summarise(rss) : null,
    initialize,
  };
}

/**
 * Sends the same request `warmups + calls` times, one after another, and
 * summarises the round trips.
 *
 * @param child A session that answered `initialize`.
 * @param request `method` and `params`.
 * @param options `calls` counted (at least 1), `warmups` not counted (default 5).
 * @returns Round-trip times in ms, and the answer size in bytes of the last call.
 * @throws {RpcError} When the server answers with an error.
 */
export async function measureRequests(
  child: RpcChild,
  request: { method: string; params?: unknown },
  options: { calls: number; warmups?: number },
): Promise<{ latencyMs: Summary; bytes: number; result: unknown }> {
  const times: number[] = [];
  let bytes = 0;
  let result: unknown = null;
  const warmups = options.warmups ?? 5;
  for (let call = 0; call < warmups + options.calls; call++) {
    const answer = await child.request(request.method, request.params);
    if (call >= warmups) times.push(answer.elapsedMs);
    bytes = answer.bytes;
    result = answer.result;
  }
  return { latencyMs: summarise(times), bytes, result };
}

/** One full enumeration through a cursor. */
export interface Paging {
  /** Requests sent (pages). */
  readonly pages: number;
  /** Items returned over all pages. */
  readonly items: number;
  /** Bytes of all answers. */
  readonly bytes: number;
  /** Sum of the pages' round trips, in ms. */
  readonly elapsedMs: number;
}

/**
 * Pages through a list method (`resources/list`, `skills/list`, ...) from the
 * first page until no `nextCursor` comes back.
 *
 * @param child A session that answered `initialize`.
 * @param method The list method.
 * @param itemsKey The result's array field, e.g. `resources`.
 * @param options `maxPages` guards against a cursor that never ends (default 100,000).
 * @returns Pages, items, bytes and the summed round trips.
 * @throws {RpcError} When the server answers with an error.
 * @throws {Error} When paging exceeds `maxPages`.
 */
export async function pageThrough(
  child: RpcChild,
  method: string,
  itemsKey: string,
  options: { maxPages?: number } = {},
): Promise<Paging> {
  let cursor: string | undefined;
  let pages = 0;
  let items = 0;
  let bytes = 0;
  let elapsedMs = 0;
  const maxPages = options.maxPages ?? 100_000;
  do {
    if (pages >= maxPages) throw new Error(`Paging "${method}" exceeded ${maxPages} pages`);
    const answer = await child.request(method, cursor === undefined ? {} : { cursor });
    const result = answer.result as Record<string, unknown>;
    pages++;
    bytes += answer.bytes;
    elapsedMs += answer.elapsedMs;
    const list = result[itemsKey];
    items += Array.isArray(list) ? list.length : 0;
    cursor = typeof result["nextCursor"] === "string" ? result["nextCursor"] : undefined;
  } while (cursor !== undefined);
  return { pages, items, bytes, elapsedMs };
}

/**
 * Waits for the first notification matching `predicate` that arrives after
 * this call.
 *
 * @param child A session that answered `initialize`.
 * @param predicate Which notification counts.
 * @param timeoutMs How long to wait, in ms.
 * @returns The notification and its arrival time (`performance.now()` ms),
 *   or null after `timeoutMs`.
 */
export function waitForNotification(
  child: RpcChild,
  predicate: (notification: Notification) => boolean,
  timeoutMs: number,
): Promise<{ notification: Notification; arrivedAt: number } | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      remove();
      resolve(null);
    }, timeoutMs);
    const remove = child.onNotification((notification, arrivedAt) => {
      if (!predicate(notification)) return;
      clearTimeout(timer);
      remove();
      resolve({ notification, arrivedAt });
    });
  });
}
