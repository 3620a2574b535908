/**
 * Holds the current catalog snapshot. Requests read `current()` once and work
 * on that snapshot; a refresh builds a whole new catalog and `swap()`s it in,
 * so no request ever sees half an update. The snapshot served is the built
 * catalog seen through the owner's overlay (`overrides.json` and the
 * problems about the owner's files, `src/skills/overrides.ts`); live refresh
 * rebuilds from `base()`, so a skill the owner disabled is still tracked.
 *
 * @module
 */

import { applyOverlay, type CatalogOverlay, EMPTY_OVERLAY } from "./overrides.ts";
import type { Catalog } from "./skill.ts";

/** A holder of the current, immutable catalog. */
export interface CatalogStore {
  /** The snapshot to answer the current request from (the overlay applied). */
  current(): Catalog;
  /** The catalog as built, before the overlay: what live refresh rebuilds from. */
  base(): Catalog;
  /** Replaces the built catalog atomically; the overlay in force applies to it. */
  swap(next: Catalog): void;
  /** Replaces the overlay atomically; returns the new served snapshot. */
  setOverlay(overlay: CatalogOverlay): Catalog;
  /** The overlay in force (the settings view shows its overrides and `setByView`). */
  overlay(): CatalogOverlay;
}

/**
 * Creates a store holding `initial`.
 *
 * @param initial The first catalog, as built.
 * @param overlay The owner's overlay at start-up. @default no overrides, no problems
 * @returns The store.
 */
export function createCatalogStore(
  initial: Catalog,
  overlay: CatalogOverlay = EMPTY_OVERLAY,
): CatalogStore {
  let base = initial;
  let layer = overlay;
  let snapshot = applyOverlay(base, layer);
  return {
    current: () => snapshot,
    base: () => base,
    swap: (next) => {
      base = next;
      snapshot = applyOverlay(base, layer);
    },
    setOverlay: (next) => {
      layer = next;
      snapshot = applyOverlay(base, layer);
      return snapshot;
    },
    overlay: () => layer,
  };
}
