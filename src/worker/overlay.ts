/**
 * The worker's side of a live change to the owner's files: swap in the new
 * overlay (the trusted part only ever narrows it) and tell every connected
 * client what changed, as live refresh does for a skill edit.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { catalogChannel } from "../mcp/model_catalog/model_catalog.ts";
import { diffCatalogs } from "../refresh/catalog_diff.ts";
import { notifyLiveServers } from "../refresh/notify_servers.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { CatalogOverlay } from "../skills/overrides.ts";

/**
 * Applies an overlay at once and notifies live servers (`prompts`,
 * `resources` and, in tool-description mode, `tools` list_changed).
 *
 * @param store The store every server answers from.
 * @param overlay The overlay from the trusted part.
 * @param config The configuration (`--catalog`, `--tools`).
 * @returns How many notifications were sent.
 */
export function applyOverlayLive(
  store: CatalogStore,
  overlay: CatalogOverlay,
  config: Config,
): number {
  const before = store.current();
  const after = store.setOverlay(overlay);
  if (after === before) return 0;
  return notifyLiveServers(diffCatalogs(before, after), {
    isToolDescriptionMode: catalogChannel(config) === "tool-description",
  });
}
