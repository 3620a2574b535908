/**
 * Issue 3's figures: time from spawn to the first `initialize` answer,
 * `skill_list` latency, full `resources/list` paging latency (when the tree
 * serves resources) and RSS, on the real corpus and on 1,000 and 10,000
 * generated skills, each also as a ratio to the floor server.
 *
 * @module
 */

import type { BenchContext, FloorFigures } from "../context.ts";
import {
  formatCount,
  formatMs,
  formatRatio,
  formatSummary,
  type MarkdownTable,
} from "../support/markdown_table.ts";
import { measureRequests, measureStartup, pageThrough } from "../support/measure.ts";
import { readTreeRss } from "../support/process_rss.ts";
import { RpcError } from "../support/rpc_client.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import { summarise, type Summary } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Generated catalog sizes measured besides the corpus. */
export const GENERATED_SIZES: readonly number[] = [1_000, 10_000];

/**
 * Pause after opening the latency session, in ms, so work the server does
 * right after `initialize` (starting its file watcher) is not timed as latency.
 */
export const SETTLE_MS = 1_000;

/** One catalog's figures. */
interface CatalogRow {
  readonly label: string;
  readonly skills: number;
  readonly startupMs: Summary;
  readonly rssInitMib: Summary | null;
  readonly skillListMs: Summary;
  readonly skillListBytes: number;
  /** Full enumeration time in ms, or why it was not measured. */
  readonly resources:
    | {
      readonly kind: "measured";
      readonly ms: Summary;
      readonly pages: number;
      readonly items: number;
    }
    | { readonly kind: "skipped"; readonly why: string };
  readonly rssAfterMib: number | null;
  readonly spawns: number;
  readonly calls: number;
}

/** The section. */
export const startupAndListingSection: BenchSection = {
  id: "startup",
  title: "Start-up, listing latency and memory",
  issue: 3,
  summary: "spawn to initialize, skill_list, resources/list paging and RSS; corpus, 1k, 10k",
  run,
};

async function run(context: BenchContext): Promise<SectionReport> {
  const floor = await context.floor();
  const rows: CatalogRow[] = [];
  rows.push(await measureCatalog(context, context.corpusLabel, context.corpus));
  for (const size of GENERATED_SIZES) {
    const generated = await context.generated(size);
    rows.push(await measureCatalog(context, `generated ${formatCount(size)}`, generated.root));
  }
  return { tables: [table(floor, rows)], notes: notes(context, floor, rows) };
}

async function measureCatalog(
  context: BenchContext,
  label: string,
  root: string,
): Promise<CatalogRow> {
  const command = skillgateCommand([root]);
  // The probe session also warms Deno's module cache for this command.
  const probe = await openSession(command);
  let skills: number;
  try {
    const first = await probe.child.request("tools/call", { name: "skill_list", arguments: {} });
    skills = totalOf(first.result);
  } finally {
    await probe.child.close();
  }
  const reps = context.repetitionsFor(skills);
  context.log(`${label}: ${skills} skills, ${reps.spawns} spawns...`);
  const startup = await measureStartup(command, {
    spawns: reps.spawns,
    warmups: 0,
    onProgress: (done) => {
      if (skills >= 1_000) context.log(`${label}: spawn ${done}/${reps.spawns}`);
    },
  });
  const session = await openSession(command);
  await using _child = session.child;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  context.log(`${label}: ${reps.calls} skill_list calls...`);
  const list = await measureRequests(session.child, {
    method: "tools/call",
    params: { name: "skill_list", arguments: {} },
  }, { calls: reps.calls });
  let resources: CatalogRow["resources"];
  if (
    session.initialize["capabilities"] === undefined ||
    (session.initialize["capabilities"] as Record<string, unknown>)["resources"] === undefined
  ) {
    resources = { kind: "skipped", why: "the server does not declare the resources capability" };
  } else {
    context.log(`${label}: ${reps.pagings} full resources/list pagings...`);
    resources = await measurePaging(session.child, reps.pagings);
  }
  const tree = await readTreeRss(session.child.pid);
  return {
    label,
    skills,
    startupMs: startup.startupMs,
    rssInitMib: startup.rssMib,
    skillListMs: list.latencyMs,
    skillListBytes: list.bytes,
    resources,
    rssAfterMib: tree === null ? null : tree.rssKib / 1024,
    spawns: reps.spawns,
    calls: reps.calls,
  };
}

async function measurePaging(
  child: Parameters<typeof pageThrough>[0],
  pagings: number,
): Promise<CatalogRow["resources"]> {
  try {
    await pageThrough(child, "resources/list", "resources");
    const times: number[] = [];
    let pages = 0;
    let items = 0;
    for (let i = 0; i < pagings; i++) {
      const paging = await pageThrough(child, "resources/list", "resources");
      times.push(paging.elapsedMs);
      pages = paging.pages;
      items = paging.items;
    }
    return { kind: "measured", ms: summarise(times), pages, items };
  } catch (error) {
    if (error instanceof RpcError) {
      return {
        kind: "skipped",
        why: `resources/list answered error ${error.code}: ${error.message}`,
      };
    }
    throw error;
  }
}

function totalOf(result: unknown): number {
  const structured = (result as { structuredContent?: { total?: unknown } }).structuredContent;
  if (typeof structured?.total === "number") return structured.total;
  const text = (result as { content?: { text?: string }[] }).content?.[0]?.text;
  const total = text === undefined ? undefined : (JSON.parse(text) as { total?: unknown }).total;
  if (typeof total !== "number") throw new Error("skill_list answered without a total");
  return total;
}

function table(floor: FloorFigures, rows: readonly CatalogRow[]): MarkdownTable {
  const mib = (value: number) => value.toFixed(1);
  const floorRss = floor.startup.rssMib?.median ?? 0;
  const body: string[][] = [[
    "floor: SDK stdio server, 1 tool",
    "–",
    formatSummary(floor.startup.startupMs),
    "1.00×",
    `${formatSummary(floor.requestMs)} ¹`,
    "1.00×",
    "–",
    "–",
    floor.startup.rssMib === null ? "–" : mib(floor.startup.rssMib.median),
    floor.rssAfterCallsMib === null ? "–" : mib(floor.rssAfterCallsMib),
    "1.00×",
  ]];
  for (const row of rows) {
    const resources = row.resources.kind === "measured"
      ? [
        `${formatSummary(row.resources.ms)} (${formatCount(row.resources.pages)} p.)`,
        formatRatio(row.resources.ms.median / row.resources.pages, floor.requestMs.median),
      ]
      : ["skipped ²", "–"];
    body.push([
      row.label,
      formatCount(row.skills),
      formatSummary(row.startupMs),
      formatRatio(row.startupMs.median, floor.startup.startupMs.median),
      formatSummary(row.skillListMs),
      formatRatio(row.skillListMs.median, floor.requestMs.median),
      ...resources,
      row.rssInitMib === null ? "–" : mib(row.rssInitMib.median),
      row.rssAfterMib === null ? "–" : mib(row.rssAfterMib),
      row.rssInitMib === null ? "–" : formatRatio(row.rssInitMib.median, floorRss),
    ]);
  }
  return {
    columns: [
      "Catalog",
      "Skills",
      "Start-up ms (med / p95)",
      "× floor",
      "`skill_list` ms (med / p95)",
      "× floor",
      "`resources/list` all pages ms (med / p95)",
      "× floor per page",
      "RSS MiB after init",
      "RSS MiB after calls",
      "× floor",
    ],
    rows: body,
  };
}

function notes(context: BenchContext, floor: FloorFigures, rows: readonly CatalogRow[]): string[] {
  const small = context.repetitionsFor(0);
  const large = rows.find((row) => row.spawns !== small.spawns);
  const out = [
    `Start-up: spawn of \`deno run <trusted flags> main.ts serve ROOT\` (as \`make run\`) to the ` +
    `last byte of the \`initialize\` answer; ${small.spawns} spawns per catalog` +
    (large === undefined
      ? ""
      : ` (${large.spawns} for ${large.label}, where one spawn takes about ` +
        `${(large.startupMs.median / 1000).toFixed(1)} s)`) +
    `, after one uncounted probe spawn. RSS after init: VmRSS of the process tree right after ` +
    `that answer, median over the same spawns; × floor compares it with the floor's.`,
    `Latency: ${small.calls} sequential requests on one session, ${SETTLE_MS} ms after its ` +
    `\`initialize\` answer and after 5 uncounted requests, timed ` +
    `from writing the request line to the answer's last byte (the client parses nothing before ` +
    `the clock stops). \`skill_list\` is called with no arguments (first page, ` +
    `${rows.map((row) => `${(row.skillListBytes / 1024).toFixed(0)} KiB`).join(" / ")} answers).`,
    `¹ The floor's request figure is one \`tools/call\` of its trivial tool; every latency ratio ` +
    `divides by it (${formatMs(floor.requestMs.median)} ms).`,
  ];
  const skipped = rows.find((row) => row.resources.kind === "skipped");
  if (skipped !== undefined && skipped.resources.kind === "skipped") {
    out.push(`² \`resources/list\` not measured: ${skipped.resources.why} in this tree.`);
  } else {
    const measured = rows.map((row) =>
      row.resources.kind === "measured"
        ? `${formatCount(row.resources.items)} resources in ${row.resources.pages} pages`
        : "–"
    );
    out.push(
      `\`resources/list\`: one full enumeration (first page to the last \`nextCursor\`), summed ` +
        `round trips, "p." = pages; its × floor divides the median per page by the floor's ` +
        `round trip; ${small.pagings} enumerations (${context.repetitionsFor(10_000).pagings} ` +
        `for large catalogs) after one uncounted; ${measured.join(" / ")}.`,
    );
  }
  out.push(
    `Generated skills: SKILL.md with frontmatter (name, description, license, metadata, ` +
      `allowed-tools) and a 3-5 KiB body, plus references/guide.md and scripts/helper.py; ` +
      `written to ${context.tempParent ?? "the system temp folder"} and deleted afterwards; ` +
      `file caches are warm.`,
  );
  return out;
}
