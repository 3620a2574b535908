/**
 * Issue 7's HTTP figure: requests per second and p50/p99 latency of
 * `skill_list` (tools/call) and `resources/read` (one SKILL.md) over
 * Streamable HTTP on the corpus, with 1, 16 and 64 concurrent clients, each
 * in its own session, and the server's resident memory before and after.
 *
 * The client is plain `fetch` (not the SDK client): a request is timed from
 * just before the POST to the last byte of its SSE answer.
 *
 * @module
 */

import { startHttpProgram } from "../../tests/support/http_program.ts";
import {
  INITIALIZE,
  INITIALIZED,
  POST_HEADERS,
  PROTOCOL_VERSION,
} from "../../tests/support/mcp_messages.ts";
import type { BenchContext } from "../context.ts";
import { formatCount, formatMs, type MarkdownTable } from "../support/markdown_table.ts";
import { readTreeRss } from "../support/process_rss.ts";
import { percentile } from "../support/stats.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** Concurrent clients measured. */
const CLIENT_COUNTS = [1, 16, 64];

/** The section. */
export const httpSection: BenchSection = {
  id: "http",
  title: "Streamable HTTP: throughput and latency",
  issue: 7,
  summary: "skill_list and resources/read over HTTP sessions with 1, 16 and 64 clients; RSS",
  run,
};

interface Workload {
  readonly label: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** The calls measured: `skill_list`, and reading the corpus skill's SKILL.md. */
function workloads(context: BenchContext): readonly Workload[] {
  return [
    { label: "skill_list", method: "tools/call", params: { name: "skill_list", arguments: {} } },
    {
      label: "resources/read SKILL.md",
      method: "resources/read",
      params: { uri: `skill://${context.corpusSkill}/SKILL.md` },
    },
  ];
}

async function run(context: BenchContext): Promise<SectionReport> {
  await using server = await startHttpProgram(["serve", context.corpus]);
  const before = await readTreeRss(server.pid);
  const durationMs = context.isQuick ? 1_000 : 3_000;
  const rows: string[][] = [];
  for (const workload of workloads(context)) {
    for (const clients of CLIENT_COUNTS) {
      context.log(`http: ${workload.label} with ${clients} clients for ${durationMs} ms...`);
      const result = await measure(server.url, workload, clients, durationMs);
      const sorted = [...result.latenciesMs].sort((a, b) => a - b);
      rows.push([
        workload.label,
        String(clients),
        formatCount(Math.round(result.latenciesMs.length / (result.elapsedMs / 1000))),
        formatMs(percentile(sorted, 50)),
        formatMs(percentile(sorted, 99)),
        formatCount(result.refusals),
      ]);
    }
  }
  const after = await readTreeRss(server.pid);
  const mib = (kib: number | undefined) => kib === undefined ? "–" : (kib / 1024).toFixed(0);
  const table: MarkdownTable = {
    columns: ["request", "clients", "requests/s", "p50 ms", "p99 ms", "refused (429/503)"],
    rows,
  };
  const memory: MarkdownTable = {
    columns: ["server RSS", "MiB"],
    rows: [
      ["after start-up, before any request", mib(before?.rssKib)],
      ["after every run above", mib(after?.rssKib)],
      ["peak", mib(after?.peakKib)],
    ],
  };
  return {
    tables: [table, memory],
    notes: [
      `Each client holds its own session (initialize, then requests back to back) for ${
        durationMs / 1000
      } s; ` + "a request is timed from the POST to the last byte of its SSE answer.",
      "Client and server share the machine's cores, so higher concurrency mostly shows queueing.",
    ],
  };
}

interface Measured {
  readonly latenciesMs: number[];
  readonly elapsedMs: number;
  readonly refusals: number;
}

async function measure(
  url: string,
  workload: Workload,
  clients: number,
  durationMs: number,
): Promise<Measured> {
  const sessions = await Promise.all(Array.from({ length: clients }, () => openHttpSession(url)));
  const latenciesMs: number[] = [];
  let refusals = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  await Promise.all(sessions.map(async (sessionId) => {
    let id = 10;
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      const response = await post(
        url,
        sessionId,
        JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: workload.method,
          params: workload.params,
        }),
      );
      const text = await response.text();
      if (response.status === 429 || response.status === 503) {
        refusals++;
        continue;
      }
      if (response.status !== 200 || !text.includes('"result"')) {
        throw new Error(`HTTP ${response.status} for ${workload.label}: ${text.slice(0, 200)}`);
      }
      latenciesMs.push(performance.now() - sentAt);
    }
  }));
  const elapsedMs = performance.now() - startedAt;
  await Promise.all(sessions.map(async (sessionId) => {
    const response = await fetch(url, {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
    });
    await response.body?.cancel();
  }));
  return { latenciesMs, elapsedMs, refusals };
}

function post(url: string, sessionId: string | null, body: string): Promise<Response> {
  const headers: Record<string, string> = {
    ...POST_HEADERS,
    "mcp-protocol-version": PROTOCOL_VERSION,
  };
  if (sessionId !== null) headers["mcp-session-id"] = sessionId;
  return fetch(url, { method: "POST", headers, body });
}

async function openHttpSession(url: string): Promise<string> {
  const response = await post(url, null, INITIALIZE);
  await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (sessionId === null) throw new Error(`initialize answered HTTP ${response.status}`);
  const initialized = await post(url, sessionId, INITIALIZED);
  await initialized.body?.cancel();
  return sessionId;
}
