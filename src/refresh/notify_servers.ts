/**
 * Telling every connected client what a refresh changed: list-changed
 * notifications for tools (in tool-description mode), prompts and
 * resources, and `notifications/resources/updated` for each subscribed URI
 * whose file changed.
 *
 * @module
 */

import { forEachLiveServer, liveNotifiers } from "../mcp/live_servers.ts";
import { subscriptionsOf } from "../mcp/resources/subscriptions.ts";
import type { CatalogChange } from "./catalog_diff.ts";

/** Options of {@linkcode notifyLiveServers}. */
export interface NotifyOptions {
  /** Whether the model's catalog lives in `skill_load`'s description (`--catalog=tool-description`). */
  readonly isToolDescriptionMode: boolean;
}

/**
 * Sends the notifications a change calls for to every live server. Sending
 * never throws: a server whose transport closed meanwhile is skipped, and
 * failures are logged to stderr.
 *
 * @param change What the refresh changed.
 * @param options The catalog channel.
 * @returns How many notifications were sent, for tests and benchmarks.
 *
 * Source: MCP 2025-11-25, "Tools", "Prompts", "Resources" (list_changed and
 * resources/updated notifications).
 */
export function notifyLiveServers(change: CatalogChange, options: NotifyOptions): number {
  let sent = 0;
  forEachLiveServer((server) => {
    const send = (what: string, task: () => Promise<void>) => {
      sent++;
      task().catch((error: unknown) => logFailure(what, error));
    };
    if (options.isToolDescriptionMode && change.modelCatalogChanged) {
      send("tools/list_changed", () => server.sendToolListChanged());
    }
    if (change.promptsChanged) {
      send("prompts/list_changed", () => server.sendPromptListChanged());
    }
    if (change.resourcesChanged) {
      send("resources/list_changed", () => server.sendResourceListChanged());
    }
    if (change.updatedUris.size === 0) return;
    for (const uri of subscriptionsOf(server)) {
      if (change.updatedUris.has(uri)) {
        send("resources/updated", () => server.sendResourceUpdated({ uri }));
      }
    }
  });
  // 2026-07-28 endpoints: the SDK routes each event to the subscriptions/listen
  // streams that asked for it (resource updates by the URIs each stream named).
  for (const notifier of liveNotifiers()) {
    if (options.isToolDescriptionMode && change.modelCatalogChanged) notifier.toolsChanged();
    if (change.promptsChanged) notifier.promptsChanged();
    if (change.resourcesChanged) notifier.resourcesChanged();
    for (const uri of change.updatedUris) notifier.resourceUpdated(uri);
    sent++;
  }
  return sent;
}

function logFailure(what: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes("Not connected")) return;
  console.error(`skillgate: could not send ${what}: ${message}`);
}
