/**
 * Issue 11's "under attack" figures: a normal client holding one active
 * session, first with no attack (the baseline), then alongside each attack,
 * each against a freshly started server on loopback: (a) 1,000 sessions
 * reading resources; (b) 3,000 connections that never finish their headers;
 * (c) 256 unfinished request bodies; (d) 4 MiB strings to every method that
 * takes a client string; (e) the same with strings just under the body cap
 * (every body is then read and parsed). For each: the normal client's success rate and p99
 * latency, the server's peak RSS and open descriptors (sampled from
 * `/proc/PID/status` and `/proc/PID/fd`), whether it survived, and how many
 * newcomers (a new session every 250 ms, one read each) were admitted. Every
 * attack is bounded in count and time and stops by itself.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { MAX_HTTP_BODY_BYTES } from "../../src/caps.ts";
import { type HttpProgram, startHttpProgram } from "../../tests/support/http_program.ts";
import type { BenchContext } from "../context.ts";
import { openBenchSession } from "../support/http_session.ts";
import { formatMs, type MarkdownTable } from "../support/markdown_table.ts";
import type { NewcomerReport, NewcomerTask } from "../support/newcomer_worker.ts";
import type { NormalClientReport, NormalClientTask } from "../support/normal_client_worker.ts";
import { percentile } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** The example skills, served when the corpus is missing. */
const EXAMPLES = new URL("../../examples/skills", import.meta.url).pathname;
/** Peak RSS target, in MiB (issue 11). */
const RSS_TARGET_MIB = 1024;
/** p99 target: at most this many times the baseline p99, or {@linkcode P99_FLOOR_MS}. */
const P99_FACTOR = 25;
const P99_FLOOR_MS = 100;
/** The normal client's per-request timeout, in ms (slower counts as a failure). */
const NORMAL_TIMEOUT_MS = 10_000;
/** Pause between one newcomer and the next, in ms. */
const NEWCOMER_INTERVAL_MS = 250;

/** The section. */
export const underAttackSection: BenchSection = {
  id: "under-attack",
  title: "HTTP under attack",
  issue: 11,
  summary: "a normal client's success and p99, server peak RSS and fds, under four attacks",
  run,
};

interface Attack {
  readonly label: string;
  /** Runs until `deadlineMs` (performance.now()) and stops by itself; returns what it did. */
  run(server: HttpProgram, deadlineMs: number, uris: readonly string[]): Promise<string>;
}

const ATTACKS: readonly Attack[] = [
  { label: "(a) 1,000 sessions reading resources", run: manySessions },
  { label: "(b) 3,000 connections that never finish headers", run: halfHeaders },
  { label: "(c) 256 unfinished bodies", run: unfinishedBodies },
  {
    label: "(d) 4 MiB strings to every method",
    run: (server, deadlineMs) => hugeStrings(server, deadlineMs, 4 * 1024 * 1024 - 1024),
  },
  {
    // The attacker who knows the body cap: every body is read and parsed.
    label: "(e) strings just under the body cap to every method",
    run: (server, deadlineMs) => hugeStrings(server, deadlineMs, MAX_HTTP_BODY_BYTES - 1024),
  },
];

interface PhaseResult {
  readonly label: string;
  readonly report: NormalClientReport | null;
  readonly newcomers: NewcomerReport | null;
  readonly peakRssMib: number | null;
  readonly peakFds: number | null;
  readonly survived: boolean;
  readonly attackNote: string;
}

async function run(context: BenchContext): Promise<SectionReport> {
  const root = existsSync(context.corpus) ? context.corpus : EXAMPLES;
  const baselineMs = context.isQuick ? 3_000 : 10_000;
  const attackMs = context.isQuick ? 6_000 : 20_000;
  const results: PhaseResult[] = [];
  context.log(`under-attack: baseline (no attack) for ${baselineMs} ms...`);
  results.push(await phase(root, "baseline (no attack)", null, baselineMs));
  for (const attack of ATTACKS) {
    context.log(`under-attack: ${attack.label} for ${attackMs} ms...`);
    results.push(await phase(root, attack.label, attack, attackMs));
  }
  const baseline = results[0]?.report;
  const baselineP99 =
    baseline === null || baseline === undefined || baseline.latenciesMs.length === 0
      ? null
      : p99(baseline.latenciesMs);
  const p99TargetMs = baselineP99 === null
    ? null
    : Math.max(P99_FACTOR * baselineP99, P99_FLOOR_MS);
  const rows = results.map((result) => {
    const report = result.report;
    const total = report === null ? 0 : report.latenciesMs.length + report.failures;
    const successRate = report === null || total === 0 ? 0 : report.latenciesMs.length / total;
    const resultP99 = report === null || report.latenciesMs.length === 0
      ? null
      : p99(report.latenciesMs);
    const meets = result.survived && successRate === 1 && resultP99 !== null &&
      p99TargetMs !== null && resultP99 <= p99TargetMs && result.peakRssMib !== null &&
      result.peakRssMib < RSS_TARGET_MIB;
    return [
      result.label,
      report === null ? "–" : `${(successRate * 100).toFixed(1)}% of ${total}`,
      resultP99 === null ? "–" : formatMs(resultP99),
      result.peakRssMib === null ? "–" : result.peakRssMib.toFixed(0),
      result.peakFds === null ? "–" : String(result.peakFds),
      result.newcomers === null || result.newcomers.attempts === 0
        ? "–"
        : `${result.newcomers.admitted} of ${result.newcomers.attempts}`,
      result.survived ? "yes" : "NO",
      meets ? "yes" : "no",
    ];
  });
  const table: MarkdownTable = {
    columns: [
      "run",
      "normal client success",
      "p99 ms",
      "server peak RSS MiB",
      "peak open fds",
      "newcomers admitted",
      "survived",
      "meets target",
    ],
    rows,
  };
  const notes = [
    `Each run starts a fresh server on ${root === EXAMPLES ? "the example skills" : "the corpus"}` +
    ` (loopback). The normal client (its own worker thread) holds one session and reads one` +
    ` SKILL.md back to back for ${baselineMs / 1000} s (baseline) or ${attackMs / 1000} s` +
    " (alongside each attack); a request counts as a success when it answers HTTP 200 with a" +
    ` result within ${NORMAL_TIMEOUT_MS / 1000} s.`,
    `Target: survived; peak RSS < ${RSS_TARGET_MIB} MiB; success 100%; p99 <= max(${P99_FACTOR} x` +
    ` baseline p99, ${P99_FLOOR_MS} ms)` +
    (p99TargetMs === null ? "." : ` = ${formatMs(p99TargetMs)} ms here.`),
    `Newcomers (another worker thread): one after another, ${NEWCOMER_INTERVAL_MS} ms apart, a` +
    " new client opens a session, reads the same SKILL.md once and ends the session; admitted" +
    ` when both answer HTTP 200 within ${NORMAL_TIMEOUT_MS / 1000} s (issue 11: a new session is` +
    " always admitted; not part of the target).",
    "Peak RSS is the server's VmHWM (its whole life, one run); open fds are sampled every 250 ms" +
    " from /proc/PID/fd. Survived: the process is alive and /healthz answers after the attack.",
    ...results.map((result) => {
      const failure = result.report?.firstFailure;
      const newcomerFailure = result.newcomers?.firstFailure;
      return `${result.label}: ${result.attackNote}` +
        (failure === null || failure === undefined
          ? ""
          : `; first normal-client failure: ${failure}`) +
        (newcomerFailure === null || newcomerFailure === undefined
          ? ""
          : `; first newcomer failure: ${newcomerFailure}`);
    }),
  ];
  return { tables: [table], notes };
}

async function phase(
  root: string,
  label: string,
  attack: Attack | null,
  durationMs: number,
): Promise<PhaseResult> {
  const server = await startHttpProgram(["serve", root]);
  let peakFds = 0;
  const sampler = setInterval(() => {
    try {
      let count = 0;
      for (const _ of Deno.readDirSync(`/proc/${server.pid}/fd`)) count++;
      peakFds = Math.max(peakFds, count);
    } catch { /* gone */ }
  }, 250);
  try {
    const uris = await listUris(server.url);
    const normalUri = uris.find((uri) => uri.endsWith("/SKILL.md")) ?? uris[0] ?? "";
    const worker = new Worker(new URL("../support/normal_client_worker.ts", import.meta.url), {
      type: "module",
    });
    const reported = new Promise<NormalClientReport | { error: string }>((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        resolve({ error: event.message });
      };
    });
    const task: NormalClientTask = {
      url: server.url,
      uri: normalUri,
      durationMs,
      timeoutMs: NORMAL_TIMEOUT_MS,
    };
    worker.postMessage(task);
    const newcomerWorker = new Worker(new URL("../support/newcomer_worker.ts", import.meta.url), {
      type: "module",
    });
    const newcomersReported = new Promise<NewcomerReport | null>((resolve) => {
      newcomerWorker.onmessage = (event) => resolve(event.data);
      newcomerWorker.onerror = (event) => {
        event.preventDefault();
        resolve(null);
      };
    });
    const newcomerTask: NewcomerTask = {
      url: server.url,
      uri: normalUri,
      durationMs,
      intervalMs: NEWCOMER_INTERVAL_MS,
      timeoutMs: NORMAL_TIMEOUT_MS,
    };
    newcomerWorker.postMessage(newcomerTask);
    const attackNote = attack === null
      ? "no attack"
      : await attack.run(server, performance.now() + durationMs, uris).catch((error) =>
        `the attack itself failed: ${error instanceof Error ? error.message : String(error)}`
      );
    const outcome = await reported;
    worker.terminate();
    const newcomers = await newcomersReported;
    newcomerWorker.terminate();
    const survived = await isAlive(server);
    const rss = readPeakRssMib(server.pid);
    return {
      label,
      report: "error" in outcome ? null : outcome,
      newcomers,
      peakRssMib: rss,
      peakFds: peakFds === 0 ? null : peakFds,
      survived,
      attackNote: "error" in outcome
        ? `${attackNote}; normal client: ${outcome.error}`
        : attackNote,
    };
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
}

/** Up to 200 resource URIs of the served skills (first pages of resources/list). */
async function listUris(url: string): Promise<string[]> {
  const session = await openBenchSession(url);
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const answer = await session.call("resources/list", cursor === undefined ? {} : { cursor });
    const data = sseData(answer.text) as
      | { result?: { resources?: { uri: string }[]; nextCursor?: string } }
      | null;
    for (const resource of data?.result?.resources ?? []) uris.push(resource.uri);
    cursor = data?.result?.nextCursor;
  } while (cursor !== undefined && uris.length < 200);
  await session.close();
  return uris;
}

/** The JSON of the last `data:` line of an SSE answer (or the body itself when JSON). */
function sseData(text: string): unknown {
  const lines = text.split("\n").filter((line) => line.startsWith("data: ") && line.length > 6);
  const last = lines.at(-1);
  try {
    return JSON.parse(last === undefined ? text : last.slice(6));
  } catch {
    return null;
  }
}

async function isAlive(server: HttpProgram): Promise<boolean> {
  try {
    await Deno.stat(`/proc/${server.pid}`);
  } catch {
    return false;
  }
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const response = await fetch(`${server.base}/healthz`, {
        signal: AbortSignal.timeout(2_000),
      });
      await response.body?.cancel();
      if (response.status === 200) return true;
    } catch { /* retry */ }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

function readPeakRssMib(pid: number): number | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : null;
  } catch {
    return null;
  }
}

function p99(latenciesMs: readonly number[]): number {
  return percentile([...latenciesMs].sort((a, b) => a - b), 99);
}

/** Runs `workers` loops of `body` until the deadline; returns how many iterations completed. */
async function untilDeadline(
  workers: number,
  deadlineMs: number,
  body: (worker: number) => Promise<void>,
): Promise<number> {
  let done = 0;
  await Promise.all(Array.from({ length: workers }, async (_, worker) => {
    while (performance.now() < deadlineMs) {
      try {
        await body(worker);
        done++;
      } catch { /* refused or cut: the attacker keeps going */ }
    }
  }));
  return done;
}

/** (a) Opens up to 1,000 sessions (32 at a time), each reading 4 resources; keeps them open. */
async function manySessions(
  server: HttpProgram,
  deadlineMs: number,
  uris: readonly string[],
): Promise<string> {
  const target = 1_000;
  let opened = 0;
  let refused = 0;
  let reads = 0;
  let next = 0;
  const sessions: { close(): Promise<void> }[] = [];
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (performance.now() < deadlineMs && next < target) {
      next++;
      try {
        const session = await openBenchSession(server.url, { timeoutMs: 10_000 });
        opened++;
        sessions.push(session);
        for (let read = 0; read < 4 && performance.now() < deadlineMs; read++) {
          const uri = uris[(opened * 4 + read) % Math.max(1, uris.length)] ?? "";
          const answer = await session.call("resources/read", { uri }, { timeoutMs: 10_000 });
          if (answer.status === 200) reads++;
        }
      } catch {
        refused++;
      }
    }
  }));
  const remainingMs = deadlineMs - performance.now();
  if (remainingMs > 0) await new Promise((resolve) => setTimeout(resolve, remainingMs));
  await Promise.all(sessions.map((session) => session.close()));
  return `${opened} sessions opened, ${reads} reads answered, ${refused} sessions refused or failed`;
}

/** (b) Keeps 3,000 connections open that send half a request line; reopens what the server closes. */
async function halfHeaders(server: HttpProgram, deadlineMs: number): Promise<string> {
  let opened = 0;
  let closedByServer = 0;
  const half = new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  const open = new Set<Deno.Conn>();
  const stopAt = setTimeout(() => {
    for (const conn of open) conn.close();
    open.clear();
  }, Math.max(0, deadlineMs - performance.now()));
  await untilDeadline(3_000, deadlineMs, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    open.add(conn);
    opened++;
    try {
      await conn.write(half);
      const buffer = new Uint8Array(1024);
      while ((await conn.read(buffer)) !== null) { /* the server's 408, if any */ }
      closedByServer++;
    } finally {
      if (open.delete(conn)) conn.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // reconnect, but not in a hot loop
  });
  clearTimeout(stopAt);
  return `${opened} connections opened, ${closedByServer} closed by the server`;
}

/** (c) Keeps 256 POSTs open whose body never ends (1 byte of a declared 1,000); reopens. */
async function unfinishedBodies(server: HttpProgram, deadlineMs: number): Promise<string> {
  let opened = 0;
  let answered = 0;
  const head = new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n` +
      "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{",
  );
  const open = new Set<Deno.Conn>();
  const stopAt = setTimeout(() => {
    for (const conn of open) conn.close();
    open.clear();
  }, Math.max(0, deadlineMs - performance.now()));
  await untilDeadline(256, deadlineMs, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    open.add(conn);
    opened++;
    try {
      await conn.write(head);
      const buffer = new Uint8Array(1024);
      while ((await conn.read(buffer)) !== null) { /* 408 after the body deadline */ }
      answered++;
    } finally {
      if (open.delete(conn)) conn.close();
    }
  });
  clearTimeout(stopAt);
  return `${opened} unfinished bodies sent, ${answered} cut by the server`;
}

/**
 * (d) and (e): sends strings of `stringChars` ASCII letters to every method
 * that takes a client string, 4 sessions at a time, until `deadlineMs`.
 */
async function hugeStrings(
  server: HttpProgram,
  deadlineMs: number,
  stringChars: number,
): Promise<string> {
  const huge = "a".repeat(stringChars);
  const calls: [string, Record<string, unknown>][] = [
    ["prompts/get", { name: huge }],
    ["completion/complete", {
      ref: { type: "ref/prompt", name: huge },
      argument: { name: "x", value: "a" },
    }],
    ["completion/complete", {
      ref: { type: "ref/prompt", name: "skill" },
      argument: { name: "name", value: huge },
    }],
    ["completion/complete", {
      ref: { type: "ref/resource", uri: "skill://{name}/{+path}" },
      argument: { name: "name", value: huge },
    }],
    ["resources/read", { uri: `skill://${huge}` }],
    ["resources/list", { cursor: huge }],
    ["prompts/list", { cursor: huge }],
    ["tools/call", { name: "skill_load", arguments: { name: huge } }],
    ["tools/call", { name: "skill_file", arguments: { name: huge, paths: ["SKILL.md"] } }],
    ["tools/call", { name: "skill_file", arguments: { name: "x", paths: [huge] } }],
    ["tools/call", { name: "skill_list", arguments: { query: huge } }],
    ["tools/call", { name: "skill_list", arguments: { cursor: huge } }],
    ["skills/get", { name: huge }],
    ["skills/list", { cursor: huge }],
  ];
  const sessions = await Promise.all(
    Array.from({ length: 4 }, () => openBenchSession(server.url, { timeoutMs: 60_000 })),
  );
  let sent = 0;
  const statuses = new Map<number, number>();
  await untilDeadline(4, deadlineMs, async (worker) => {
    const [method, params] = calls[sent % calls.length] as [string, Record<string, unknown>];
    sent++;
    const session = sessions[worker];
    if (session === undefined) return;
    const answer = await session.call(method, params, { timeoutMs: 60_000 });
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  });
  await Promise.all(sessions.map((session) => session.close()));
  const byStatus = [...statuses].map(([status, count]) => `${count}x HTTP ${status}`).join(", ");
  const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const cut = sent - answered;
  return `${sent} requests of ${(huge.length / 1048576).toFixed(2)} MiB strings over ` +
    `${calls.length} method/argument pairs (${byStatus || "no answers"}` +
    `${cut > 0 ? `; ${cut} without an answer (the send failed)` : ""})`;
}
