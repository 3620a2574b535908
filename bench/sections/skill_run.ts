/**
 * Issues 4 and 16: what `skill_run` costs over spawning the same script
 * directly, in each isolation mode (sandbox, PID namespace, process group),
 * sequentially and with many runs at once, for a shell and a Python script
 * that print one line. skillgate runs with
 * `MCP_CONFIRM_MODE=auto` (no confirmation round trip) and no grant
 * (standalone: the declaration stands).
 *
 * @module
 */

import type { InterpreterName } from "../../src/scripts/declaration.ts";
import { buildScriptEnv } from "../../src/scripts/script_env.ts";
import { programEnv } from "../../tests/support/program.ts";
import type { BenchContext } from "../context.ts";
import { formatMs, formatRatio, formatSummary } from "../support/markdown_table.ts";
import type { RpcChild } from "../support/rpc_client.ts";
import { openSession, skillgateCommand } from "../support/servers.ts";
import { summarise, type Summary } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Runs started at once in the concurrent case. */
export const CONCURRENT_RUNS = 16;
/** Direct spawns in flight at most in the concurrent case: skill_run's default parallelism. */
export const DIRECT_PARALLELISM = 4;

const SKILL = "bench-run";

const SCRIPTS = [
  { script: "scripts/hello.sh", interpreter: "sh", text: 'echo "hello $1"\n' },
  {
    script: "scripts/hello.py",
    interpreter: "python3",
    text: "import sys\nprint('hello', sys.argv[1])\n",
  },
] as const;

/** The isolation modes measured, strongest first, as `--isolation` spells them. */
export const MODES = [
  { flag: "sandbox", mode: "sandbox" },
  { flag: "pid-namespace", mode: "pid-namespace" },
  { flag: "group", mode: "process-group" },
] as const;

/** The section. */
export const skillRunSection: BenchSection = {
  id: "skill-run",
  title: "`skill_run` overhead over a direct spawn, per isolation mode",
  issue: 16,
  summary: "skill_run of a sh and a python3 script in each isolation mode (sandbox, PID " +
    "namespace, process group) vs spawning them directly; sequential, 16 at once",
  run,
};

async function run(context: BenchContext): Promise<SectionReport> {
  const root = await context.makeTempDir("skillgate-bench-run-");
  const skillDir = `${root}/${SKILL}`;
  await writeFixture(skillDir);
  const sequentialRuns = context.isQuick ? 5 : 30;
  const batches = context.isQuick ? 2 : 5;
  const skipped: string[] = [];
  // The direct spawns, once per script: every mode is compared with the same figures.
  const direct = new Map<string, { one: Summary; batch: Summary }>();
  for (const entry of SCRIPTS) {
    const spawn = () => spawnDirect(entry.interpreter, entry.script, skillDir);
    try {
      await spawn();
    } catch (error) {
      skipped.push(`${entry.interpreter}: ${(error as Error).message}`);
      continue;
    }
    context.log(`skill-run ${entry.interpreter}: direct spawns...`);
    direct.set(entry.script, {
      one: await repeat(sequentialRuns, () => timed(spawn)),
      batch: await repeat(
        batches,
        () => timed(() => pool(CONCURRENT_RUNS, DIRECT_PARALLELISM, spawn)),
      ),
    });
  }
  const rows: string[][] = [];
  for (const { flag, mode } of MODES) {
    let session;
    try {
      session = await openSession(
        skillgateCommand([root], {
          extraArgs: [`--isolation=${flag}`],
          env: { MCP_CONFIRM_MODE: "auto" },
        }),
      );
    } catch (error) {
      skipped.push(`${mode}: skillgate did not start (${(error as Error).message.slice(0, 160)})`);
      continue;
    }
    await using child = session.child;
    const inForce = await isolationInForce(child);
    if (inForce !== mode) {
      skipped.push(`${mode}: not available here (skillgate chose ${inForce})`);
      continue;
    }
    for (const entry of SCRIPTS) {
      const baseline = direct.get(entry.script);
      if (baseline === undefined) continue;
      const probe = await callRun(child, entry.script);
      if (probe.error !== null) {
        skipped.push(`${mode} ${entry.interpreter}: ${probe.error}`);
        continue;
      }
      context.log(`skill-run ${mode} ${entry.interpreter}: ${sequentialRuns} sequential runs...`);
      const viaTool = await repeat(sequentialRuns, () => timed(() => callRun(child, entry.script)));
      rows.push(
        row(`${entry.interpreter}, ${mode}, one at a time (per run)`, viaTool, baseline.one),
      );
      context.log(
        `skill-run ${mode} ${entry.interpreter}: ${batches} batches of ${CONCURRENT_RUNS}...`,
      );
      const toolBatches = await repeat(
        batches,
        () =>
          timed(() =>
            Promise.all(Array.from({ length: CONCURRENT_RUNS }, () => callRun(child, entry.script)))
          ),
      );
      rows.push(
        row(
          `${entry.interpreter}, ${mode}, ${CONCURRENT_RUNS} at once (whole batch)`,
          toolBatches,
          baseline.batch,
        ),
      );
    }
  }
  if (rows.length === 0) {
    return {
      tables: [],
      notes: [`Not measured: skill_run did not run the fixture (${skipped.join("; ")}).`],
    };
  }
  return {
    tables: [{
      columns: [
        "Script, isolation, mode",
        "`skill_run` ms (med / p95)",
        "Direct spawn ms (med / p95)",
        "× direct",
        "Overhead ms (median)",
      ],
      rows,
    }],
    notes: [
      `Fixture: one skill declaring \`${SCRIPTS.map((s) => s.script).join("`, `")}\` (each ` +
      `prints one line). \`skill_run\` is timed from writing the \`tools/call\` line to the ` +
      `answer's last byte, with \`MCP_CONFIRM_MODE=auto\` and no grant; every answer is checked ` +
      `(completed, exit 0, expected output). Direct = \`Deno.Command\` of the same interpreter ` +
      `(found on the same PATH) and script from the bench process, with piped output and ` +
      `the environment skill_run builds for it (\`buildScriptEnv\` over the server's PATH and ` +
      `HOME, plus Python's UTF-8 variables), measured once and compared with every mode.`,
      `Modes: one skillgate per mode, started with \`--isolation=sandbox\` (bubblewrap: mount, ` +
      `PID, network, IPC, UTS, user namespaces), \`--isolation=pid-namespace\` (\`unshare\`) ` +
      `and \`--isolation=group\` (the stopping \`sh\` launcher, \`setpriv\` first as root), ` +
      `one after another in the same run; a mode this machine cannot give is skipped with why.`,
      `One at a time: ${sequentialRuns} runs each way after one warm-up. ${CONCURRENT_RUNS} at ` +
      `once: ${batches} batches; all ${CONCURRENT_RUNS} \`tools/call\` requests are written at ` +
      `once and skillgate's queue runs them; the direct batch keeps ${DIRECT_PARALLELISM} in ` +
      `flight (skill_run's default parallelism), so both do the same work with the same width.`,
      ...(skipped.length > 0 ? [`Skipped: ${skipped.join("; ")}.`] : []),
    ],
  };
}

/** The isolation mode a running skillgate reports in `skill_list`. */
async function isolationInForce(child: RpcChild): Promise<string> {
  const answer = await child.request("tools/call", { name: "skill_list", arguments: {} });
  const body = (answer.result as { structuredContent?: { isolation?: { mode?: string } } })
    .structuredContent;
  return body?.isolation?.mode ?? "unknown";
}

function row(label: string, viaTool: Summary, viaSpawn: Summary): string[] {
  return [
    label,
    formatSummary(viaTool),
    formatSummary(viaSpawn),
    formatRatio(viaTool.median, viaSpawn.median),
    formatMs(viaTool.median - viaSpawn.median),
  ];
}

async function writeFixture(skillDir: string): Promise<void> {
  await Deno.mkdir(`${skillDir}/scripts`, { recursive: true });
  const declarations = SCRIPTS.map((entry) =>
    `    - script: ${entry.script}\n      interpreter: ${entry.interpreter}\n      timeout: 30`
  ).join("\n");
  await Deno.writeTextFile(
    `${skillDir}/SKILL.md`,
    `---\nname: ${SKILL}\ndescription: Benchmark fixture whose scripts print one line and ` +
      `exit. Use only in benchmarks.\nmcp-host:\n  version: 1\n  run:\n${declarations}\n---\n\n` +
      `# ${SKILL}\n\nRun one of the scripts with one argument.\n`,
  );
  for (const entry of SCRIPTS) await Deno.writeTextFile(`${skillDir}/${entry.script}`, entry.text);
}

/** Calls skill_run once; `error` says why the answer is not a clean completed run. */
async function callRun(child: RpcChild, script: string): Promise<{ error: string | null }> {
  const answer = await child.request("tools/call", {
    name: "skill_run",
    arguments: { name: SKILL, script, args: ["bench"] },
  });
  const result = answer.result as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: { text?: string }[];
  };
  const body = result.structuredContent ?? {};
  if (result.isError === true) {
    // A tool error carries its JSON {error, message, hint} as text (src/mcp/tool_result.ts).
    return { error: `tool error: ${result.content?.[0]?.text ?? "(no text)"}` };
  }
  if (
    body["status"] !== "completed" || body["exitCode"] !== 0 || body["stdout"] !== "hello bench\n"
  ) {
    return { error: `unexpected answer ${JSON.stringify(body).slice(0, 200)}` };
  }
  return { error: null };
}

async function spawnDirect(
  interpreter: InterpreterName,
  script: string,
  cwd: string,
): Promise<{ error: null }> {
  const output = await new Deno.Command(interpreter, {
    args: [script, "bench"],
    cwd,
    clearEnv: true,
    // What skill_run gives the same script on a server started with programEnv().
    env: { ...buildScriptEnv(programEnv(), { granted: [], dataDir: null, interpreter }).env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (output.code !== 0 || stdout !== "hello bench\n") {
    throw new Error(`Direct run of "${script}" failed (exit ${output.code}): ${stdout}`);
  }
  return { error: null };
}

/** Times `task`, which must settle without an error result, in ms. */
async function timed(task: () => Promise<unknown>): Promise<number> {
  const startedAt = performance.now();
  const result = await task();
  const elapsed = performance.now() - startedAt;
  const results = Array.isArray(result) ? result : [result];
  for (const item of results) {
    const error = (item as { error?: string | null } | undefined)?.error;
    if (typeof error === "string") throw new Error(`A run failed during the benchmark: ${error}`);
  }
  return elapsed;
}

async function repeat(times: number, measure: () => Promise<number>): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push(await measure());
  return summarise(samples);
}

async function pool(total: number, width: number, task: () => Promise<unknown>): Promise<void> {
  let started = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (started < total) {
      started++;
      await task();
    }
  }));
}
