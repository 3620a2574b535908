/**
 * Issue 4's soak: 1,000 sequential `skill_run` calls of a shell script on
 * one server, with the server's resident memory (process tree) and open file
 * descriptors sampled along the way. Both must stay flat: a run that leaked a
 * pipe, a timer or a queued promise would show as a steady climb.
 *
 * @module
 */

import type { BenchContext } from "../context.ts";
import { formatMs, formatSummary } from "../support/markdown_table.ts";
import { readTreeRss } from "../support/process_rss.ts";
import type { RpcChild } from "../support/rpc_client.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import { summarise } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Runs in the full soak. */
export const SOAK_RUNS = 1_000;
/** Samples of RSS and descriptors taken over the soak (first after the warm-up). */
export const SOAK_SAMPLES = 11;

const SKILL = "bench-soak";
const SCRIPT = "scripts/tick.sh";

/** The section. */
export const skillRunSoakSection: BenchSection = {
  id: "skill-run-soak",
  title: "`skill_run` soak: 1,000 sequential runs",
  issue: 4,
  summary: "1,000 sequential skill_run calls; server RSS and open descriptors must stay flat",
  run,
};

async function run(context: BenchContext): Promise<SectionReport> {
  const root = await context.makeTempDir("skillgate-bench-soak-");
  await writeFixture(`${root}/${SKILL}`);
  const session = await openSession(
    skillgateCommand([root], { env: { MCP_CONFIRM_MODE: "auto" } }),
  );
  await using child = session.child;
  const runs = context.isQuick ? 100 : SOAK_RUNS;
  const warmUp = Math.min(50, Math.floor(runs / 10));
  for (let i = 0; i < warmUp; i++) await callRun(child, i);
  const every = Math.max(1, Math.floor(runs / (SOAK_SAMPLES - 1)));
  const samples: { run: number; rssKib: number | null; fds: number | null }[] = [];
  const sample = async (done: number) => {
    const rss = await readTreeRss(child.pid);
    samples.push({ run: done, rssKib: rss?.rssKib ?? null, fds: countFds(child.pid) });
  };
  const latencies: number[] = [];
  await sample(0);
  context.log(`skill-run-soak: ${runs} sequential runs...`);
  for (let done = 1; done <= runs; done++) {
    const startedAt = performance.now();
    await callRun(child, done);
    latencies.push(performance.now() - startedAt);
    if (done % every === 0 || done === runs) await sample(done);
  }
  const first = samples[0];
  const last = samples.at(-1);
  const rssValues = samples.map((s) => s.rssKib).filter((v): v is number => v !== null);
  const fdValues = samples.map((s) => s.fds).filter((v): v is number => v !== null);
  const latency = summarise(latencies);
  const firstHalf = summarise(latencies.slice(0, Math.floor(runs / 2)));
  const secondHalf = summarise(latencies.slice(Math.floor(runs / 2)));
  return {
    tables: [
      {
        columns: ["After run", "Server tree RSS MiB", "Open fds"],
        rows: samples.map((s) => [
          String(s.run),
          s.rssKib === null ? "n/a" : (s.rssKib / 1024).toFixed(1),
          s.fds === null ? "n/a" : String(s.fds),
        ]),
      },
      {
        columns: ["Figure", "Value"],
        rows: [
          ["Runs (after warm-up)", String(runs)],
          ["Latency ms (med / p95), all runs", formatSummary(latency)],
          [
            "Median latency ms, first half → second half",
            `${formatMs(firstHalf.median)} → ${formatMs(secondHalf.median)}`,
          ],
          [
            "RSS MiB, first → last sample (min / max)",
            rssValues.length === 0 ? "n/a" : `${mib(first?.rssKib)} → ${mib(last?.rssKib)} ` +
              `(${mib(Math.min(...rssValues))} / ${mib(Math.max(...rssValues))})`,
          ],
          [
            "Open fds, first → last sample (min / max)",
            fdValues.length === 0
              ? "n/a"
              : `${first?.fds} → ${last?.fds} (${Math.min(...fdValues)} / ${
                Math.max(...fdValues)
              })`,
          ],
        ],
      },
    ],
    notes: [
      `One server (\`MCP_CONFIRM_MODE=auto\`, standalone, the declaration stands) runs ` +
      `\`${SCRIPT}\` (prints its argument) ${runs} times one after another after ${warmUp} ` +
      "uncounted warm-up runs; every answer is checked (completed, exit 0, expected output).",
      "RSS is VmRSS summed over the server process and its descendants; open fds are the " +
      "entries of /proc/<pid>/fd of the server process (worker threads share it). Flat means " +
      "no steady climb from sample to sample; V8's heap grows and shrinks in steps.",
    ],
  };
}

function mib(kib: number | null | undefined): string {
  return kib === null || kib === undefined ? "n/a" : (kib / 1024).toFixed(1);
}

async function writeFixture(skillDir: string): Promise<void> {
  await Deno.mkdir(`${skillDir}/scripts`, { recursive: true });
  await Deno.writeTextFile(
    `${skillDir}/SKILL.md`,
    `---\nname: ${SKILL}\ndescription: Benchmark fixture for the skill_run soak. Use only in ` +
      `benchmarks.\nmcp-host:\n  version: 1\n  run:\n    - script: ${SCRIPT}\n` +
      `      interpreter: sh\n      timeout: 30\n---\n\n# ${SKILL}\n`,
  );
  await Deno.writeTextFile(`${skillDir}/${SCRIPT}`, 'echo "tick $1"\n');
}

async function callRun(child: RpcChild, index: number): Promise<void> {
  const answer = await child.request("tools/call", {
    name: "skill_run",
    arguments: { name: SKILL, script: SCRIPT, args: [String(index)] },
  });
  const result = answer.result as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: { text?: string }[];
  };
  // A tool error carries its JSON {error, message, hint} as text (src/mcp/tool_result.ts).
  const body = result.structuredContent ?? { toolError: result.content?.[0]?.text };
  if (result.isError === true || body["exitCode"] !== 0 || body["stdout"] !== `tick ${index}\n`) {
    throw new Error(`Soak run ${index} failed: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** Entries of `/proc/<pid>/fd`, or null when it cannot be read. Requires `--allow-all`. */
function countFds(pid: number): number | null {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync(`/proc/${pid}/fd`)) count++;
    return count;
  } catch {
    return null;
  }
}
