/**
 * The fetcher worker: the only code that talks to GitHub and to publishers.
 * It runs with exactly the set from `computeFetcherPermissions()` (net: API
 * and download hosts, the allowed publisher origins; read/write: the
 * sources cache; env: `GITHUB_TOKEN`, the GitHub parts only with a GitHub
 * source), so even a bug here cannot read a
 * skill root or write anywhere else.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { type FetchOutcome, fetchSource } from "./fetch_source.ts";
import type { FetcherErrorMessage, FetchMessage, OutcomesMessage } from "./fetcher_messages.ts";
import { parseRemoteSpec } from "./remote_source.ts";

self.onmessage = async (event: MessageEvent<FetchMessage>) => {
  const message = event.data;
  if (message?.type !== "fetch") return;
  try {
    const token = readToken();
    const context = {
      endpoints: message.endpoints,
      cacheDir: message.cacheDir,
      caps: message.caps,
      token: token === "" ? null : token,
      publisherOrigins: message.publisherOrigins ?? [],
    };
    const outcomes: FetchOutcome[] = [];
    for (const order of message.orders) {
      const source = parseRemoteSpec(order.given);
      outcomes.push(await fetchSource({ ...order, source }, context));
    }
    self.postMessage({ type: "outcomes", id: message.id, outcomes } satisfies OutcomesMessage);
  } catch (error) {
    const reply: FetcherErrorMessage = {
      type: "error",
      id: message.id,
      message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
    self.postMessage(reply);
  }
};

/** `GITHUB_TOKEN`, or null when unset or not in the set (no GitHub source configured). */
function readToken(): string | null {
  try {
    return Deno.env.get("GITHUB_TOKEN") ?? null;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return null;
    throw error;
  }
}
