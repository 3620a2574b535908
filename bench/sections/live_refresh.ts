/**
 * Issue 6's refresh figure: time from writing a skill's SKILL.md to the
 * `notifications/resources/updated` for it reaching a subscribed client, on
 * a copy of the corpus (the real-world one when present, else the fixture
 * corpus) and on 10,000 generated skills. The
 * debounce's quiet period (200 ms by default) is part of every figure.
 *
 * @module
 */

import { basename, join } from "node:path";
import { copyToTemp } from "../../tests/support/program.ts";
import type { BenchContext } from "../context.ts";
import { formatCount, formatSummary, type MarkdownTable } from "../support/markdown_table.ts";
import { waitForNotification } from "../support/measure.ts";
import type { RpcChild } from "../support/rpc_client.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import { generatedSkillName } from "../support/skill_generator.ts";
import { summarise, type Summary } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** How long one edit may take to be noticed before the section gives up, in ms. */
export const NOTICE_TIMEOUT_MS = 15_000;
/** How long the server gets to start watching: probe edits until one is noticed, in ms. */
export const WATCH_READY_TIMEOUT_MS = 30_000;
/** Pause after each notification so the next edit starts a new batch, in ms. */
const GAP_MS = 300;

const UPDATED = "notifications/resources/updated";

/** The section. */
export const liveRefreshSection: BenchSection = {
  id: "refresh",
  title: "Live refresh: edit to notification",
  issue: 6,
  summary: "write SKILL.md -> resources/updated at a subscribed client; corpus copy and 10k",
  run,
};

interface Row {
  readonly label: string;
  readonly skills: number;
  readonly result:
    | { readonly kind: "measured"; readonly ms: Summary; readonly otherNotifications: string[] }
    | { readonly kind: "skipped"; readonly why: string };
}

async function run(context: BenchContext): Promise<SectionReport> {
  await using copy = await copyToTemp(context.corpus);
  const corpusCopy = join(copy.dir, basename(context.corpus));
  const rows: Row[] = [
    await measureRoot(
      context,
      `${context.corpusLabel} copy`,
      corpusCopy,
      context.corpusSkills,
      null,
    ),
  ];
  const generated = await context.generated(10_000);
  rows.push(
    await measureRoot(context, "generated 10,000", generated.root, 10_000, generatedSkillName(0)),
  );
  const table: MarkdownTable = {
    columns: [
      "Catalog",
      "Skills",
      "Edits",
      "Edit → `resources/updated` ms (med / p95)",
      "Also sent",
    ],
    rows: rows.map((row) =>
      row.result.kind === "measured"
        ? [
          row.label,
          formatCount(row.skills),
          String(row.result.ms.count),
          formatSummary(row.result.ms),
          row.result.otherNotifications.join(", ") || "–",
        ]
        : [row.label, formatCount(row.skills), "0", `skipped: ${row.result.why}`, "–"]
    ),
  };
  return {
    tables: [table],
    notes: [
      "Each edit rewrites one skill's SKILL.md (its body gains or loses a comment line) while a " +
      "client is subscribed to that file's `skill://` URI; the clock runs from just before the " +
      "write to the arrival of `notifications/resources/updated` for that URI. The server " +
      "waits for a quiet period (200 ms by default) before rebuilding, so that is the floor " +
      `here; edits are ${GAP_MS} ms apart after each notification. Probe edits made until the ` +
      "watcher is running are not counted. The edited file is restored afterwards.",
      "Also sent: other notifications that arrived during the counted edits (a body edit " +
      "changes no list, so none is expected).",
    ],
  };
}

async function measureRoot(
  context: BenchContext,
  label: string,
  root: string,
  skills: number,
  knownSkill: string | null,
): Promise<Row> {
  const session = await openSession(skillgateCommand([root]));
  await using child = session.child;
  const resources = (session.initialize["capabilities"] as Record<string, unknown> | undefined)
    ?.["resources"] as { subscribe?: boolean } | undefined;
  if (resources?.subscribe !== true) {
    return { label, skills, result: { kind: "skipped", why: "no resource subscriptions" } };
  }
  const skill = knownSkill ?? await firstSkillName(child);
  const uri = `skill://${skill}/SKILL.md`;
  const file = `${root}/${skill}/SKILL.md`;
  const original = await Deno.readTextFile(file);
  await child.request("resources/subscribe", { uri });
  let edits = 0;
  const edit = async () => {
    edits++;
    await Deno.writeTextFile(file, `${original}\n<!-- bench edit ${edits} -->\n`);
  };
  const noticed = (timeoutMs: number) =>
    waitForNotification(
      child,
      (n) => n.method === UPDATED && n.params["uri"] === uri,
      timeoutMs,
    );
  try {
    context.log(`${label}: waiting for the watcher...`);
    const readyBy = performance.now() + WATCH_READY_TIMEOUT_MS;
    let isWatching = false;
    while (!isWatching && performance.now() < readyBy) {
      const waiting = noticed(2_000);
      await edit();
      isWatching = (await waiting) !== null;
    }
    if (!isWatching) {
      return {
        label,
        skills,
        result: {
          kind: "skipped",
          why: `no notification within ${WATCH_READY_TIMEOUT_MS / 1000} s of probe edits`,
        },
      };
    }
    await sleep(GAP_MS);
    const reps = context.isQuick ? 3 : 10;
    context.log(`${label}: ${reps} edits...`);
    const others = new Set<string>();
    const stopListening = child.onNotification((n) => {
      if (!(n.method === UPDATED && n.params["uri"] === uri)) others.add(n.method);
    });
    const times: number[] = [];
    try {
      for (let i = 0; i < reps; i++) {
        const waiting = noticed(NOTICE_TIMEOUT_MS);
        const startedAt = performance.now();
        await edit();
        const arrived = await waiting;
        if (arrived === null) {
          throw new Error(`${label}: edit ${i + 1} was not noticed within ${NOTICE_TIMEOUT_MS} ms`);
        }
        times.push(arrived.arrivedAt - startedAt);
        await sleep(GAP_MS);
      }
    } finally {
      stopListening();
    }
    return {
      label,
      skills,
      result: { kind: "measured", ms: summarise(times), otherNotifications: [...others].sort() },
    };
  } finally {
    await Deno.writeTextFile(file, original);
  }
}

async function firstSkillName(child: RpcChild): Promise<string> {
  const answer = await child.request("tools/call", {
    name: "skill_list",
    arguments: { limit: 1 },
  });
  const result = answer.result as { structuredContent?: { skills?: { name: string }[] } };
  const name = result.structuredContent?.skills?.[0]?.name;
  if (name === undefined) throw new Error("skill_list listed no skill");
  return name;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
