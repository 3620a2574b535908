/**
 * Worker side of a remote source change: the trusted part sends the remote
 * sources' new roots; the catalog is rebuilt with the local roots and those,
 * swapped in whole, and every connected client gets the same notifications
 * as for a local change (list_changed, resources/updated). Changes are
 * applied one at a time, the latest winning; a build that a local refresh
 * overtook is redone on top of it. Roots equal to those served change
 * nothing (the trusted part sends them after every fetch, so a local refresh
 * that started before a swap and ended after it, built on the old remote
 * roots, is corrected by the next poll).
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { Root } from "../skills/skill.ts";
import { catalogChannel } from "../mcp/model_catalog/model_catalog.ts";
import { diffCatalogs } from "./catalog_diff.ts";
import { notifyLiveServers } from "./notify_servers.ts";

/**
 * Makes the handler of `remote-roots` messages.
 *
 * @param store The store requests read.
 * @param config The configuration (caps, catalog channel).
 * @returns A function taking the new remote roots; it never throws (a
 *   failed rebuild is logged to stderr and the current snapshot stays).
 *
 * Requires `--allow-read` on the sources cache (the worker's set has it when
 * sources are configured).
 */
export function createRemoteRootsHandler(
  store: CatalogStore,
  config: Config,
): (roots: readonly Root[]) => void {
  let latest: readonly Root[] | null = null;
  let running: Promise<void> | null = null;
  const apply = async () => {
    while (latest !== null) {
      const remote = latest;
      latest = null;
      // Built from the catalog as built (before the owner's overlay), as live refresh does.
      const previousBase = store.base();
      const previousServed = store.current();
      const local = previousBase.roots.filter((root) => root.from !== "remote");
      const served = previousBase.roots.filter((root) => root.from === "remote");
      if (JSON.stringify(served) === JSON.stringify(remote)) continue; // nothing to do
      const next = await buildCatalog([...local, ...remote], config.caps);
      if (store.base() !== previousBase) {
        // A local refresh swapped meanwhile: build again on top of it, so neither is lost.
        latest ??= remote;
        continue;
      }
      store.swap(next);
      notifyLiveServers(
        diffCatalogs(previousServed, store.current(), remote.map((root) => root.path)),
        { isToolDescriptionMode: catalogChannel(config) === "tool-description" },
      );
    }
  };
  return (roots) => {
    // Only remote roots are replaced this way; local ones stay as configured.
    latest = roots.filter((root) => root.from === "remote");
    running ??= apply().catch((error: unknown) => {
      console.error("skillgate: could not apply a remote source change:", error);
    }).finally(() => (running = null));
  };
}
