/**
 * The search engine, loaded on first use: `skill_search`, `skill_browse` and
 * the background index warm-up reach it through here, so a server answers
 * `initialize` without loading the index, the stemmer and the snippet cutter
 * (issue 13: the first answer after spawn pays only for what it needs). The
 * module is imported once; later calls reuse it.
 *
 * @module
 */

import type { CatalogStore } from "../skills/catalog_store.ts";
import type { Catalog } from "../skills/skill.ts";
import type { SearchResults } from "./search_skills.ts";
import type { GiveWay } from "../skills/_time_slice.ts";

let engine: Promise<typeof import("./search_skills.ts")> | null = null;

function loadEngine(): Promise<typeof import("./search_skills.ts")> {
  engine ??= import("./search_skills.ts");
  return engine;
}

/**
 * {@linkcode import("./search_skills.ts").searchCatalog}, loading the engine
 * on the first call.
 *
 * @param store The store whose index is searched (built on first use).
 * @param catalog The snapshot the results come from.
 * @param query The client's query (already bounded by the tool's schema).
 * @param limit The most results, 1 or more.
 * @param maxSkillMdBytes The SKILL.md read cap in bytes (the configured cap).
 * @returns The ranked results with snippets.
 * @throws What `searchCatalog` throws (a gated read failing is skipped there).
 *
 * Requires what the worker holds: read on the roots (bodies through the gate).
 */
export async function searchCatalog(
  store: CatalogStore,
  catalog: Catalog,
  query: string,
  limit: number,
  maxSkillMdBytes?: number,
): Promise<SearchResults> {
  return (await loadEngine()).searchCatalog(store, catalog, query, limit, maxSkillMdBytes);
}

/**
 * {@linkcode import("./search_skills.ts").warmSearchIndex}, loading the
 * engine first.
 *
 * @param store The store whose index is built.
 * @param maxSkillMdBytes The SKILL.md read cap in bytes (the configured cap).
 * @param giveWay Hold the build while client requests flow. @default none
 * @returns How many skills the index holds.
 *
 * Requires what the worker holds: read on the roots.
 */
export async function warmSearchIndex(
  store: CatalogStore,
  maxSkillMdBytes?: number,
  giveWay?: Omit<GiveWay, "isUrgent">,
): Promise<number> {
  return (await loadEngine()).warmSearchIndex(store, maxSkillMdBytes, giveWay);
}
