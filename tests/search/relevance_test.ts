/**
 * Issue 14's relevance set: precision at 1 and at 3 of `skill_search`'s
 * ranking on a dedicated fixture catalog and on 10,000 generated skills with
 * distinct skills planted (inflections, accents, a body-only term, words
 * spread over name and description, decoys that must not be returned).
 * `deno run bench/search_relevance.ts` prints the same rows as a table.
 */

import assert from "node:assert/strict";
import {
  FIXTURE_QUERIES,
  fixtureCatalog,
  GENERATED_QUERIES,
  plantedCatalog,
  precision,
  type RelevanceRow,
  runRelevance,
} from "../support/search_relevance.ts";

function describe(rows: readonly RelevanceRow[]): string {
  return rows.map((row) =>
    `${row.query.query} -> ${row.got.join(", ")} (expected ${row.query.expected}` +
    `${row.leaked.length > 0 ? `; leaked ${row.leaked.join(", ")}` : ""})`
  ).join("\n");
}

Deno.test("relevance: the fixture set ranks the expected skill first for 90% of queries, top 3 for all", () => {
  const rows = runRelevance("fixture", fixtureCatalog(), FIXTURE_QUERIES);
  assert.ok(rows.length >= 20, "at least 20 queries");
  const { at1, at3 } = precision(rows);
  assert.ok(at1 >= 0.9, `precision@1 ${at1}\n${describe(rows)}`);
  assert.equal(at3, 1, `precision@3 ${at3}\n${describe(rows)}`);
});

Deno.test("relevance: skills planted among 10,000 generated ones are found, decoys never returned", () => {
  const rows = runRelevance("generated", plantedCatalog(), GENERATED_QUERIES);
  const { at1, at3 } = precision(rows);
  assert.ok(at1 >= 0.9, `precision@1 ${at1}\n${describe(rows)}`);
  assert.equal(at3, 1, `precision@3 ${at3}\n${describe(rows)}`);
  assert.deepEqual(rows.flatMap((row) => row.leaked), [], describe(rows));
});
