/**
 * Issue 14's figures for `skill_search`: the relevance table (query, expected,
 * got; precision at 1 and 3) and, at 10,000 generated skills, the index build
 * time and heap, the latency of 1,000 queries (p50, p99; ranking plus
 * snippets, in process), and the re-index time after one edit. Run it alone
 * with `--only=search`.
 *
 * @module
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { searchSkills } from "../../src/search/search_skills.ts";
import { SkillSearchIndex } from "../../src/search/skill_index.ts";
import { memoryCatalog, memorySkill } from "../../tests/support/memory_catalog.ts";
import {
  FIXTURE_QUERIES,
  fixtureCatalog,
  GENERATED_QUERIES,
  plantedCatalog,
  precision,
  runRelevance,
} from "../../tests/support/search_relevance.ts";
import { seededRandom } from "../../tests/support/seeded_random.ts";
import type { BenchContext } from "../context.ts";
import { formatCount, type MarkdownTable } from "../support/markdown_table.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Queries timed (issue 14: 1,000). */
export const TIMED_QUERIES = 1_000;
/** Edits whose re-index is timed. */
const EDITS = 20;

/** The section. */
export const searchSection: BenchSection = {
  id: "search",
  title: "skill_search: relevance and speed at 10,000 skills",
  issue: 14,
  summary: "relevance table (p@1, p@3); build, 1,000 queries p50/p99, re-index after an edit",
  run,
};

const VOCABULARY = (
  "report table chart summary schema release invoice parser pdf csv slide deck sql migration " +
  "log triage image resize test writer docs linter api client validate validating webhook " +
  "resume kafka partitions legend naive bayes time zones amortization cat concatenate error " +
  "format output input review change version build script command cache query index"
).split(" ");

/** 1,000 deterministic queries: the relevance queries, then 1-4 words drawn from a vocabulary. */
function timedQueries(): string[] {
  const random = seededRandom(14);
  const queries = [...FIXTURE_QUERIES, ...GENERATED_QUERIES].map((query) => query.query);
  while (queries.length < TIMED_QUERIES) {
    const length = 1 + Math.floor(random() * 4);
    const words = Array.from(
      { length },
      () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!,
    );
    // Every fifth query ends with an unfinished word (a prefix).
    if (queries.length % 5 === 0) words[length - 1] = words[length - 1]!.slice(0, 3);
    queries.push(words.join(" "));
  }
  return queries.slice(0, TIMED_QUERIES);
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

async function run(context: BenchContext): Promise<SectionReport> {
  const rows = [
    ...runRelevance("fixture", fixtureCatalog(), FIXTURE_QUERIES),
    ...runRelevance("generated", plantedCatalog(), GENERATED_QUERIES),
  ];
  const fixtureP = precision(rows.filter((row) => row.set === "fixture"));
  const generatedP = precision(rows.filter((row) => row.set === "generated"));
  const allP = precision(rows);
  const relevance: MarkdownTable = {
    columns: ["Set", "Query", "Expected", "Got (top 3)", "@1", "@3"],
    rightAligned: [],
    rows: rows.map((row) => {
      const clean = row.leaked.length === 0;
      return [
        row.set,
        row.query.query,
        row.query.expected +
        (row.query.neverReturned === undefined ? "" : ` (never: ${row.query.neverReturned})`),
        row.got.join(", ") + (clean ? "" : ` LEAKED ${row.leaked.join(", ")}`),
        clean && row.got[0] === row.query.expected ? "yes" : "no",
        clean && row.got.includes(row.query.expected) ? "yes" : "no",
      ];
    }),
  };
  context.log("search: building 10,000 skills in memory");
  const catalog = plantedCatalog();
  const gc = forcedGc();
  gc();
  const heapBefore = Deno.memoryUsage().heapUsed;
  const index = new SkillSearchIndex();
  const buildStart = performance.now();
  index.sync(catalog);
  const buildMs = performance.now() - buildStart;
  gc();
  const heapMib = (Deno.memoryUsage().heapUsed - heapBefore) / 1_048_576;
  const queries = timedQueries();
  for (const query of queries.slice(0, 20)) await searchSkills(index, query, 10); // warm-up
  const samples: number[] = [];
  for (const query of queries) {
    const start = performance.now();
    await searchSkills(index, query, 10);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  context.log("search: timing re-index after one edit");
  const editMs: number[] = [];
  let current = catalog;
  for (let edit = 0; edit < EDITS; edit++) {
    const target = current.skills[(edit * 499) % current.skills.length]!;
    const edited = memorySkill({
      name: target.name,
      description: target.description,
      body: `${target.body ?? ""}\nEdit ${edit}: mention zeppelin.`,
    });
    const next = memoryCatalog(current.skills.map((skill) => skill === target ? edited : skill));
    const start = performance.now();
    const report = index.sync(next);
    editMs.push(performance.now() - start);
    if (report.indexed !== 1) throw new Error(`One edit re-indexed ${report.indexed} skills`);
    current = next;
  }
  editMs.sort((a, b) => a - b);
  const speed: MarkdownTable = {
    columns: [
      "Skills",
      "Terms",
      "Build ms",
      "Heap MiB",
      "Queries",
      "p50 ms",
      "p99 ms",
      "max ms",
      "Re-index after 1 edit ms (med / max)",
    ],
    rows: [[
      formatCount(index.size),
      formatCount(index.termCount),
      buildMs.toFixed(0),
      heapMib.toFixed(1),
      formatCount(samples.length),
      percentile(samples, 0.5).toFixed(2),
      percentile(samples, 0.99).toFixed(2),
      samples.at(-1)!.toFixed(2),
      `${percentile(editMs, 0.5).toFixed(2)} / ${editMs.at(-1)!.toFixed(2)}`,
    ]],
  };
  const served = await measureServed(context, queries);
  const overStdio: MarkdownTable = {
    columns: [
      "Served over stdio",
      "Skills",
      "First search after initialize ms",
      "Calls",
      "p50 ms",
      "p99 ms",
    ],
    rows: [[
      "skillgate serve (generated catalog)",
      formatCount(served.skills),
      served.firstMs.toFixed(0),
      formatCount(served.samples.length),
      percentile(served.samples, 0.5).toFixed(2),
      percentile(served.samples, 0.99).toFixed(2),
    ]],
  };
  return {
    tables: [relevance, speed, overStdio],
    notes: [
      `Precision: fixture @1 ${pct(fixtureP.at1)}, @3 ${pct(fixtureP.at3)}; generated ` +
      `@1 ${pct(generatedP.at1)}, @3 ${pct(generatedP.at3)}; all ${rows.length} queries ` +
      `@1 ${pct(allP.at1)}, @3 ${pct(allP.at3)}. A returned "never" decoy counts as a miss.`,
      "Latency is one in-process `searchSkills` call (ranking plus snippets, limit 10) on the " +
      "worker's code path, without JSON-RPC; targets p50 <= 5 ms, p99 <= 20 ms. Queries: the " +
      "relevance queries, then 1-4 words from the generated vocabulary (every fifth ending " +
      "in a 3-letter prefix), so most match thousands of skills.",
      "Served over stdio: sequential JSON-RPC round trips from the bench process (JSON " +
      "encoding, the SDK, the pipe) on the generated catalog written to disk, `--static`.",
      "Heap is what the index keeps: V8's used heap after a forced full GC, minus the same " +
      "before the build (the catalog, with its ~38 MiB of SKILL.md text, is held anyway). " +
      "Re-index is `sync()` to a snapshot with one skill's body changed: one pass of identity " +
      "checks over 10,000 skills plus re-indexing that one skill.",
    ],
  };
}

/**
 * The real program on the generated 10,000 skills: time from the
 * `initialize` answer to the first `skill_search` answer (the index is built
 * in the background from start-up, time-sliced), then round trips of
 * sequential `tools/call skill_search`.
 */
async function measureServed(
  context: BenchContext,
  queries: readonly string[],
): Promise<{ skills: number; firstMs: number; samples: number[] }> {
  const generated = await context.generated(10_000);
  context.log("search: starting skillgate on 10,000 generated skills");
  const session = await openSession(
    skillgateCommand([generated.root], { extraArgs: ["--static"] }),
  );
  await using child = session.child;
  const call = (query: string) =>
    child.request("tools/call", { name: "skill_search", arguments: { query } });
  let start = performance.now();
  const first = await call("release notes");
  const firstMs = performance.now() - start;
  const result = first.result as { isError?: boolean } | undefined;
  if (result?.isError === true) throw new Error(`skill_search failed: ${JSON.stringify(result)}`);
  const count = context.isQuick ? 200 : queries.length;
  context.log(`search: ${count} skill_search calls over stdio`);
  const samples: number[] = [];
  for (const query of queries.slice(0, count)) {
    start = performance.now();
    await call(query);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { skills: generated.skills, firstMs, samples };
}

/** V8's full garbage collection, made callable at run time (node:v8 + node:vm, as in Node). */
function forcedGc(): () => void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return () => {
    gc();
    gc();
  };
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}
