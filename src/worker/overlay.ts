/**
 * The worker's side of a live change to the owner's files: swap in the new
 * overlay and lower the caps (the trusted part only ever narrows both, and
 * the worker keeps each cap at the lowest it was given), rebuild the
 * catalog when a catalog cap went down, and tell every connected client
 * what changed, as live refresh does for a skill edit.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import type { Config } from "../config/config.ts";
import { catalogChannel } from "../mcp/model_catalog/model_catalog.ts";
import { diffCatalogs } from "../refresh/catalog_diff.ts";
import type { LiveRefresh } from "../refresh/live_refresh.ts";
import { notifyLiveServers } from "../refresh/notify_servers.ts";
import type { CatalogStore } from "../skills/catalog_store.ts";
import type { CatalogOverlay } from "../skills/overrides.ts";

/** The caps that shape the catalog itself (a lowered one needs a fresh build). */
const CATALOG_CAP_KEYS = [
  "maxSkills",
  "maxFilesPerSkill",
  "maxFoldersPerSkill",
  "maxSkillMdBytes",
] as const satisfies readonly (keyof Caps)[];

/** The caps in force in this worker, read through `view` at each use. */
export interface LiveCaps {
  /** Reads the caps in force now on every property access. */
  readonly view: Caps;
  /**
   * Lowers each cap to `next`'s value where that is lower (a higher value is ignored).
   *
   * @returns Whether a catalog cap went down.
   */
  lower(next: Caps): boolean;
}

/**
 * Holds the worker's caps, starting from the configuration's.
 *
 * @param initial The caps at start-up.
 * @returns The holder; pass `view` wherever a `Caps` is read per request.
 */
export function createLiveCaps(initial: Caps): LiveCaps {
  const values: Record<keyof Caps, number> = { ...initial };
  const view = Object.freeze(
    Object.defineProperties(
      {},
      Object.fromEntries(
        (Object.keys(values) as (keyof Caps)[]).map((key) => [
          key,
          { enumerable: true, get: () => values[key] },
        ]),
      ),
    ),
  ) as Caps;
  return {
    view,
    lower: (next) => {
      let isCatalogLowered = false;
      for (const key of Object.keys(values) as (keyof Caps)[]) {
        const proposed = next[key];
        if (typeof proposed !== "number" || !(proposed < values[key])) continue;
        values[key] = proposed;
        if ((CATALOG_CAP_KEYS as readonly string[]).includes(key)) isCatalogLowered = true;
      }
      return isCatalogLowered;
    },
  };
}

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

/**
 * Applies one `overlay` message: the overlay at once, the caps lowered, and
 * a fresh catalog build (through live refresh, so it never races a refresh)
 * when a catalog cap went down.
 *
 * @param update The message's overlay and caps.
 * @param context The store, configuration, caps holder and live refresh
 *   (null under `--static`, where the trusted part sends nothing anyway).
 * @returns Whether a catalog cap went down (once the overlay is applied; the
 *   rebuild continues in the background, or is the caller's to start when
 *   `refresh` is null because the watch is not up yet).
 */
export function applyOwnerUpdate(
  update: { readonly overlay: CatalogOverlay; readonly caps: Caps },
  context: {
    readonly store: CatalogStore;
    readonly config: Config;
    readonly caps: LiveCaps;
    readonly refresh: LiveRefresh | null;
  },
): boolean {
  const isCatalogLowered = context.caps.lower(update.caps);
  applyOverlayLive(context.store, update.overlay, context.config);
  if (isCatalogLowered) {
    context.refresh?.rebuildAll().catch((error: unknown) => {
      console.error("skillgate: could not rebuild the catalog with the lowered caps:", error);
    });
  }
  return isCatalogLowered;
}
