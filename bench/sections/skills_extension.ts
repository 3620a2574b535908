/**
 * Issue 6's enumeration figure: a full `skills/list` enumeration (SEP-2640,
 * every page to the last `nextCursor`) on the corpus and on 1,000 and 10,000
 * generated skills. The first enumeration after start-up computes every
 * file's SHA-256 digest (cold); later ones answer from the digest cache
 * (warm). Both are reported, per page also as a ratio to the floor's round trip.
 *
 * @module
 */

import type { BenchContext } from "../context.ts";
import { formatCount, formatMs, formatRatio, formatSummary } from "../support/markdown_table.ts";
import { pageThrough, type Paging } from "../support/measure.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import { summarise } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** The extension's identifier in `capabilities.extensions`. */
const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";

/** The section. */
export const skillsExtensionSection: BenchSection = {
  id: "skills-list",
  title: "Skills extension: full `skills/list` enumeration",
  issue: 6,
  summary: "SEP-2640 skills/list paged to the end, cold (digests) and warm; corpus, 1k, 10k",
  run,
};

async function run(context: BenchContext): Promise<SectionReport> {
  const floor = await context.floor();
  const catalogs: [string, string][] = [[context.corpusLabel, context.corpus]];
  for (const size of [1_000, 10_000]) {
    catalogs.push([`generated ${formatCount(size)}`, (await context.generated(size)).root]);
  }
  const rows: string[][] = [];
  for (const [label, root] of catalogs) {
    const session = await openSession(skillgateCommand([root]));
    await using child = session.child;
    const extensions = (session.initialize["capabilities"] as Record<string, unknown> | undefined)
      ?.["extensions"] as Record<string, unknown> | undefined;
    if (extensions?.[SKILLS_EXTENSION_ID] === undefined) {
      return {
        tables: [],
        notes: ["Not measured: the server does not declare the skills extension in this tree."],
      };
    }
    context.log(`${label}: cold skills/list enumeration...`);
    const cold = await pageThrough(child, "skills/list", "skills");
    const reps = context.repetitionsFor(cold.items);
    context.log(`${label}: ${reps.pagings} warm skills/list enumerations...`);
    const warm: Paging[] = [];
    for (let i = 0; i < reps.pagings; i++) {
      warm.push(await pageThrough(child, "skills/list", "skills"));
    }
    const warmMs = summarise(warm.map((paging) => paging.elapsedMs));
    rows.push([
      label,
      formatCount(cold.items),
      formatCount(cold.pages),
      formatMs(cold.elapsedMs),
      formatRatio(cold.elapsedMs / cold.pages, floor.requestMs.median),
      formatSummary(warmMs),
      formatRatio(warmMs.median / cold.pages, floor.requestMs.median),
      formatCount(Math.round(cold.bytes / 1024)),
    ]);
  }
  return {
    tables: [{
      columns: [
        "Catalog",
        "Skills listed",
        "Pages",
        "Cold ms (1st, digests)",
        "× floor per page",
        "Warm ms (med / p95)",
        "× floor per page",
        "KiB per enumeration",
      ],
      rows,
    }],
    notes: [
      "One enumeration = `skills/list` from no cursor to the last `nextCursor`, summed round " +
      "trips on one session. Cold = the first enumeration after start-up, which reads and " +
      "hashes every file (SHA-256 manifest); warm = later ones, answered from the digest cache.",
      `× floor per page divides the time per page by the floor's \`tools/call\` round trip ` +
      `(${formatMs(floor.requestMs.median)} ms).`,
      `Warm: ${context.repetitionsFor(0).pagings} enumerations after the cold one ` +
      `(${context.repetitionsFor(10_000).pagings} for 10,000 skills).`,
    ],
  };
}
