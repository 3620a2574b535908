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

import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import type { BenchContext } from "../context.ts";
import { formatCount, formatMs, type MarkdownTable } from "../support/markdown_table.ts";
import { readTreeRss } from "../support/process_rss.ts";
import { PROTOCOL_VERSION, REPO_ROOT } from "../support/servers.ts";
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

const WORKLOADS: readonly Workload[] = [
  { label: "skill_list", method: "tools/call", params: { name: "skill_list", arguments: {} } },
  {
    label: "resources/read SKILL.md",
    method: "resources/read",
    params: { uri: "skill://mcp-builder/SKILL.md" },
  },
];

async function run(context: BenchContext): Promise<SectionReport> {
  const server = await startServer(context.corpus);
  try {
    const before = await readTreeRss(server.pid);
    const durationMs = context.isQuick ? 1_000 : 3_000;
    const rows: string[][] = [];
    for (const workload of WORKLOADS) {
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
  } finally {
    await server.stop();
  }
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
      const response = await post(url, sessionId, {
        jsonrpc: "2.0",
        id: id++,
        method: workload.method,
        params: workload.params,
      });
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

function post(url: string, sessionId: string | null, body: unknown): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
  };
  if (sessionId !== null) headers["mcp-session-id"] = sessionId;
  return fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
}

async function openHttpSession(url: string): Promise<string> {
  const response = await post(url, null, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "skillgate-bench", version: "1.0.0" },
    },
  });
  await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (sessionId === null) throw new Error(`initialize answered HTTP ${response.status}`);
  const initialized = await post(url, sessionId, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  await initialized.body?.cancel();
  return sessionId;
}

interface HttpServer {
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

async function startServer(root: string): Promise<HttpServer> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...trustedRunFlags(), `${REPO_ROOT}main.ts`, "serve", root, `--http=${port}`],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/tmp" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const ready = Promise.withResolvers<void>();
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      if (stderr.includes("over Streamable HTTP at")) ready.resolve();
    }
    ready.reject(new Error(`skillgate exited before it was ready: ${stderr}`));
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await drained;
  };
  const timer = setTimeout(
    () => ready.reject(new Error("skillgate was not ready in 60 s")),
    60_000,
  );
  try {
    await ready.promise;
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { pid: child.pid, url: `http://127.0.0.1:${port}/mcp`, stop };
}
