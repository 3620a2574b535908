/**
 * Scratch-grade probe of the 10,000-skill cold first full `skills/list`
 * (issue 13, s9-h4): spawns a tree's launcher (`TREE/skillgate serve ROOT`)
 * with a fresh index cache, sends `initialize`, pages through every
 * `skills/list` page, and samples every thread's CPU from
 * `/proc/PID/task/TID/stat` every 50 ms meanwhile (threads that end keep
 * their last sample). Prints, per thread name, the CPU seconds at the
 * `initialize` answer, at the first page and at the last, the wall times,
 * and a timeline of 250 ms buckets with each named thread's share of a core
 * in it (who is busy when, and who waits). CPU figures are robust under other
 * tenants' load; wall figures are not: the load average is printed with each.
 *
 * Usage (warm the catalog's page cache first, `find ROOT -type f | xargs cat >/dev/null`):
 *
 * ```sh
 * deno run -A bench/cold_listing_thread_probe.ts --tree=/path/to/worktree --root=ROOT [--timeline] [--cache=DIR] [--serve-args=A,B]
 * ```
 *
 * Requires `--allow-all` (`/proc` reads, spawning the launcher).
 *
 * @module
 */

import { INITIALIZE_REQUEST } from "../tests/support/mcp_messages.ts";
import { programEnv } from "../tests/support/program.ts";
import { spawnRpcChild } from "./support/rpc_client.ts";

const args = new Map(
  Deno.args.map((arg) => {
    const [key, ...rest] = arg.replace(/^--/, "").split("=");
    return [key ?? "", rest.join("=")] as const;
  }),
);
const tree = (args.get("tree") ?? "").replace(/\/$/, "");
const root = args.get("root") ?? "";
if (tree === "" || root === "") {
  console.error("usage: --tree=WORKTREE --root=ROOT [--timeline]");
  Deno.exit(2);
}
const TICKS_PER_S = 100;
const SAMPLE_MS = 50;
const BUCKET_MS = 250;

/** One thread's name and CPU ticks (user + system). */
function readThreads(pid: number): Map<number, { name: string; ticks: number; waitS: number }> {
  const out = new Map<number, { name: string; ticks: number; waitS: number }>();
  let tids: Deno.DirEntry[];
  try {
    tids = [...Deno.readDirSync(`/proc/${pid}/task`)];
  } catch {
    return out;
  }
  for (const entry of tids) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${entry.name}/stat`);
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]);
      // schedstat: ns on CPU, ns runnable but waiting for a CPU (other tenants), timeslices.
      const sched = Deno.readTextFileSync(`/proc/${pid}/task/${entry.name}/schedstat`).split(" ");
      const waitS = Number(sched[1]) / 1e9;
      out.set(Number(entry.name), { name, ticks, waitS });
    } catch {
      // ended between the listing and the read
    }
  }
  return out;
}

function load(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ")[0] ?? "?";
}

// `--cache=DIR` keeps an index cache between runs (a warm start); else a fresh one each run.
const keptCache = args.get("cache");
const cache = keptCache ?? await Deno.makeTempDir({ prefix: "h4-probe-cache-" });
const loadBefore = load();
const startedAt = performance.now();
const child = spawnRpcChild({
  executable: `${tree}/skillgate`,
  // `--serve-args=A,B` adds serve options (e.g. `--static`).
  args: ["serve", root, ...(args.get("serve-args") ?? "").split(",").filter((a) => a !== "")],
  cwd: tree,
  // DENO_V8_FLAGS passes through (e.g. `--prof` for one V8 log per isolate, in the tree's folder).
  env: programEnv({
    XDG_CACHE_HOME: cache,
    ...(Deno.env.get("DENO_V8_FLAGS") ? { DENO_V8_FLAGS: Deno.env.get("DENO_V8_FLAGS")! } : {}),
  }),
});
const seen = new Map<number, { name: string; ticks: number; waitS: number }>();
const timeline: { atMs: number; ticks: Map<number, number>; waits: Map<number, number> }[] = [];
const sampler = setInterval(() => {
  const now = readThreads(child.pid);
  for (const [tid, info] of now) seen.set(tid, info);
  timeline.push({
    atMs: performance.now() - startedAt,
    ticks: new Map([...seen].map(([tid, info]) => [tid, info.ticks])),
    waits: new Map([...seen].map(([tid, info]) => [tid, info.waitS])),
  });
}, SAMPLE_MS);

function snapshot(): Map<number, { name: string; ticks: number; waitS: number }> {
  for (const [tid, info] of readThreads(child.pid)) seen.set(tid, info);
  return new Map([...seen].map(([tid, info]) => [tid, { ...info }]));
}

/** Names threads for the table: the main thread, the workers by creation order, the rest by name. */
function label(tid: number, name: string): string {
  if (tid === child.pid) return "trusted part (main)";
  return name;
}

function byLabel(
  threads: Map<number, { name: string; ticks: number; waitS: number }>,
  of: "cpu" | "wait" = "cpu",
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [tid, info] of threads) {
    const key = label(tid, info.name);
    sums.set(key, (sums.get(key) ?? 0) + (of === "cpu" ? info.ticks / TICKS_PER_S : info.waitS));
  }
  return sums;
}

await child.request("initialize", INITIALIZE_REQUEST.params);
const initMs = performance.now() - startedAt;
const atInit = snapshot();
await child.notify("notifications/initialized");
let cursor: string | undefined;
let pages = 0;
let firstPageMs = 0;
let atFirstPage = new Map<number, { name: string; ticks: number; waitS: number }>();
let items = 0;
do {
  const answer = await child.request("skills/list", cursor === undefined ? {} : { cursor });
  const result = answer.result as Record<string, unknown>;
  pages++;
  if (pages === 1) {
    firstPageMs = performance.now() - startedAt;
    atFirstPage = snapshot();
  }
  items += Array.isArray(result["skills"]) ? (result["skills"] as unknown[]).length : 0;
  cursor = typeof result["nextCursor"] === "string" ? result["nextCursor"] : undefined;
} while (cursor !== undefined);
const endMs = performance.now() - startedAt;
const atEnd = snapshot();
clearInterval(sampler);
const loadAfter = load();
if (args.has("stderr")) console.log(child.stderrTail());
await child.close(5_000);
if (keptCache === undefined) await Deno.remove(cache, { recursive: true }).catch(() => {});

const init = byLabel(atInit);
const end = byLabel(atEnd);
const waited = byLabel(atEnd, "wait");
const total = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
console.log(
  `tree ${tree}  load ${loadBefore} -> ${loadAfter}  pages ${pages} skills ${items}`,
);
console.log(
  `wall ms: initialize ${initMs.toFixed(0)}, first page ${firstPageMs.toFixed(0)}, ` +
    `last page ${endMs.toFixed(0)}, listing (from initialize) ${(endMs - initMs).toFixed(0)}`,
);
const names = [...end.keys()].sort((a, b) => (end.get(b) ?? 0) - (end.get(a) ?? 0));
for (const name of names) {
  const at = init.get(name) ?? 0;
  const last = end.get(name) ?? 0;
  if (last < 0.02) continue;
  console.log(
    `  ${name.padEnd(24)} at initialize ${at.toFixed(2)} s, at end ${last.toFixed(2)} s ` +
      `(runnable, waiting for a CPU: ${(waited.get(name) ?? 0).toFixed(2)} s)`,
  );
}
{
  // initialize -> first page (the build, then what precedes the first page): each named
  // thread's seconds on a CPU, runnable but waiting for one, and asleep (waiting on another).
  const spanS = (firstPageMs - initMs) / 1000;
  const cpu0 = byLabel(atInit);
  const wait0 = byLabel(atInit, "wait");
  const cpu1 = byLabel(atFirstPage);
  const wait1 = byLabel(atFirstPage, "wait");
  const parts = [...cpu1.keys()].filter((name) => (cpu1.get(name) ?? 0) >= 0.1).map((name) => {
    const cpu = (cpu1.get(name) ?? 0) - (cpu0.get(name) ?? 0);
    const wait = (wait1.get(name) ?? 0) - (wait0.get(name) ?? 0);
    return `${name} ${cpu.toFixed(2)}/${wait.toFixed(2)}/${
      Math.max(0, spanS - cpu - wait).toFixed(2)
    }`;
  });
  console.log(
    `  initialize -> first page ${spanS.toFixed(2)} s (cpu/runnable/asleep s): ${parts.join("; ")}`,
  );
}
console.log(
  `  ${"process".padEnd(24)} at initialize ${total(init).toFixed(2)} s, at end ${
    total(end).toFixed(2)
  } s`,
);

if (args.has("timeline")) {
  // Each named thread's share of one core per bucket (100 = one core all the bucket).
  const tidNames = new Map([...atEnd].map(([tid, info]) => [tid, label(tid, info.name)]));
  const shown = names.filter((name) => (end.get(name) ?? 0) >= 0.1);
  console.log(
    `\ntimeline (${BUCKET_MS} ms buckets, % of one core on CPU / runnable waiting): ` +
      shown.join(" | "),
  );
  let previous = new Map<number, number>();
  let previousWaits = new Map<number, number>();
  let bucketStart = 0;
  for (const sample of timeline) {
    if (sample.atMs - bucketStart < BUCKET_MS) continue;
    const span = sample.atMs - bucketStart;
    const per = new Map<string, number>();
    const waits = new Map<string, number>();
    for (const [tid, ticks] of sample.ticks) {
      const name = tidNames.get(tid) ?? "?";
      per.set(name, (per.get(name) ?? 0) + (ticks - (previous.get(tid) ?? 0)));
      const wait = (sample.waits.get(tid) ?? 0) - (previousWaits.get(tid) ?? 0);
      waits.set(name, (waits.get(name) ?? 0) + wait);
    }
    const cells = shown.map((name) =>
      `${Math.round(((per.get(name) ?? 0) / TICKS_PER_S) * 1000 / span * 100)}/${
        Math.round((waits.get(name) ?? 0) * 1000 / span * 100)
      }`.padStart(8)
    );
    const mark = sample.atMs >= initMs && bucketStart < initMs
      ? " <- initialize"
      : sample.atMs >= firstPageMs && bucketStart < firstPageMs
      ? " <- first page"
      : "";
    console.log(`${(bucketStart / 1000).toFixed(2).padStart(6)} s ${cells.join(" ")}${mark}`);
    previous = sample.ticks;
    previousWaits = sample.waits;
    bucketStart = sample.atMs;
  }
}
