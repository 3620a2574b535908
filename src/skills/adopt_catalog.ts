/**
 * Taking over a catalog that crossed `postMessage`: the trusted part builds
 * the start-up catalog once (it needs the declarations to decide the
 * worker's run permission) and sends it to the worker with the start
 * message, so the worker does not build it again. A structured clone keeps
 * the data and its shared references but not frozenness, so the worker
 * freezes it again before serving from it.
 *
 * @module
 */

import { freezeCatalog } from "./_freeze.ts";
import type { Catalog } from "./skill.ts";

/**
 * Makes a structured clone of a catalog a snapshot again: deeply frozen,
 * with `byName` rebuilt from `skills` so that both hold the very same skill
 * objects. Reads no file and needs no permission.
 *
 * @param received The catalog as the start message carried it (built by
 *   `buildCatalog` in the trusted part; never client input).
 * @returns The frozen snapshot; `received`'s parts are frozen in place and reused.
 *
 * Source: ARCHITECTURE.md, "the catalog is an immutable snapshot".
 */
export function adoptCatalog(received: Catalog): Catalog {
  return freezeCatalog(received.roots, received.skills, received.problems);
}
