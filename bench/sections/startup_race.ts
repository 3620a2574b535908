/**
 * Issue 11 item 6's longer loop: the start-up swap race of
 * `tests/support/startup_race.ts` (SKILL.md flipped between a real file, a
 * symlink to an outside secret and a FIFO while the real program starts),
 * for 300 starts or 5 minutes (30 starts with `--quick`). CI runs the same
 * race bounded to 50 starts or 60 s (`tests/e2e/startup_race_test.ts`).
 *
 * @module
 */

import type { BenchContext } from "../context.ts";
import { formatSummary } from "../support/markdown_table.ts";
import { summarise } from "../support/stats.ts";
import { runStartupRace } from "../../tests/support/startup_race.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Starts in the full loop. */
export const RACE_STARTS = 300;
/** Wall-clock budget of the full loop in ms. */
export const RACE_MAX_MS = 5 * 60_000;
/** A start not answered (or ended) by then counts as hung, in ms. */
const HANG_MS = 45_000;

/** The section. */
export const startupRaceSection: BenchSection = {
  id: "startup-race",
  title: "Start-up under a SKILL.md swap race",
  issue: 11,
  summary: "300 starts while SKILL.md flips between a file, an outside symlink and a FIFO",
  run,
};

async function run(context: BenchContext): Promise<SectionReport> {
  const maxStarts = context.isQuick ? 30 : RACE_STARTS;
  const maxMs = context.isQuick ? 60_000 : RACE_MAX_MS;
  context.log(`startup-race: up to ${maxStarts} starts or ${maxMs / 1000} s...`);
  const result = await runStartupRace({
    maxStarts,
    maxMs,
    hangMs: HANG_MS,
    log: (line) => {
      if (/HUNG|LEAK/.test(line)) context.log(`startup-race: ${line}`);
    },
  });
  return {
    tables: [{
      columns: ["Figure", "Value"],
      rows: [
        ["Starts (trusted part built the catalog)", `${result.starts} (${result.trustedBuilds})`],
        ["Starts that served the outside file (must be 0)", String(result.leaks)],
        ["Starts that hung or did not exit (must be 0)", String(result.hangs)],
        ["Starts that served the real skill", String(result.served)],
        ["Spawn to last answer ms (med / p95)", formatSummary(summarise(result.answerMs))],
        ["Real skill served once the swapping stopped", result.calmServes ? "yes" : "NO"],
      ],
    }],
    notes: [
      "A python3 swapper replaces SKILL.md (rename over it) with a symlink to a secret file " +
      "outside the skill, then a FIFO, then the real file, 1 ms each, while skillgate starts " +
      "(live refresh on), answers skill_list, skill_load and resources/list, and exits at the " +
      "end of its input. Every other start grants a script, so the trusted part builds the " +
      "catalog; the others build it in the worker.",
      "The real skill is served only when SKILL.md was the real file at the moment of the " +
      "read; refusals (symlink-escape, not a regular file) are the expected outcome otherwise.",
    ],
  };
}
