/**
 * Holds the current catalog snapshot. Requests read `current()` once and work
 * on that snapshot; a refresh builds a whole new catalog and `swap()`s it in,
 * so no request ever sees half an update.
 *
 * @module
 */

import type { Catalog } from "./skill.ts";

/** A holder of the current, immutable catalog. */
export interface CatalogStore {
  /** The snapshot to answer the current request from. */
  current(): Catalog;
  /** Replaces the snapshot atomically. */
  swap(next: Catalog): void;
}

/**
 * Creates a store holding `initial`.
 *
 * @param initial The first catalog.
 * @returns The store.
 */
export function createCatalogStore(initial: Catalog): CatalogStore {
  let snapshot = initial;
  return {
    current: () => snapshot,
    swap: (next) => {
      snapshot = next;
    },
  };
}
