/**
 * Issue 12: start-up and per-request figures for each protocol era. For
 * 2025-11-25 start-up is spawn to the `initialize` answer; for 2026-07-28 it
 * is spawn to the first `server/discover` answer (no handshake). Per request
 * is the `tools/list` round trip on a warm connection. Floors: a bare v2
 * server (`bench/floor_server.ts`, both eras, same Deno and flags) and, as a
 * second reference, the same server on the 1.x SDK (2025-11-25 only).
 *
 * @module
 */

import type { BenchContext } from "../context.ts";
import { formatSummary } from "../support/markdown_table.ts";
import { type ChildCommand, spawnRpcChild } from "../support/rpc_client.ts";
import { floorCommand, skillgateCommand } from "../support/servers.ts";
import { summarise, type Summary } from "../support/stats.ts";
import { programCommand, programEnv, REPO_ROOT } from "../../tests/support/program.ts";
import type { BenchSection, SectionReport } from "./section.ts";

/** The section. */
export const protocolErasSection: BenchSection = {
  id: "eras",
  title: "Protocol eras: 2025-11-25 (initialize) and 2026-07-28 (stateless envelope)",
  issue: 12,
  summary: "start-up and tools/list per era; floors: bare v2 server and bare 1.x server",
  run,
};

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const INITIALIZE_PARAMS = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "skillgate-bench", version: "1.0.0" },
};

type Era = "2025-11-25" | "2026-07-28";

/** The command of the 1.x floor (`bench/floor_server_v1.ts`). */
function floorV1Command(): ChildCommand {
  return {
    executable: Deno.execPath(),
    args: programCommand([], "bench/floor_server_v1.ts"),
    cwd: REPO_ROOT,
    env: programEnv(),
  };
}

/** Opens a connection in `era`; resolves with the child once the first answer arrived. */
async function open(command: ChildCommand, era: Era) {
  const child = spawnRpcChild(command);
  if (era === "2025-11-25") {
    await child.request("initialize", INITIALIZE_PARAMS);
    await child.notify("notifications/initialized");
  } else {
    await child.request("server/discover", { _meta: MODERN_META });
  }
  return child;
}

async function measure(
  command: ChildCommand,
  era: Era,
  reps: { spawns: number; calls: number },
): Promise<{ startup: Summary; request: Summary }> {
  const startups: number[] = [];
  for (let spawn = 0; spawn < reps.spawns; spawn++) {
    const startedAt = performance.now();
    await using _child = await open(command, era);
    startups.push(performance.now() - startedAt);
  }
  await using child = await open(command, era);
  const params = era === "2025-11-25" ? {} : { _meta: MODERN_META };
  const latencies: number[] = [];
  for (let call = 0; call < reps.calls; call++) {
    latencies.push((await child.request("tools/list", params)).elapsedMs);
  }
  return { startup: summarise(startups), request: summarise(latencies) };
}

async function run(context: BenchContext): Promise<SectionReport> {
  const reps = context.repetitionsFor(0);
  const servers: [string, ChildCommand, Era][] = [
    ["skillgate (corpus), 2025-11-25", skillgateCommand([context.corpus]), "2025-11-25"],
    ["skillgate (corpus), 2026-07-28", skillgateCommand([context.corpus]), "2026-07-28"],
    ["floor: bare v2 server, 2025-11-25", floorCommand(), "2025-11-25"],
    ["floor: bare v2 server, 2026-07-28", floorCommand(), "2026-07-28"],
    ["reference: bare 1.x server, 2025-11-25", floorV1Command(), "2025-11-25"],
  ];
  const rows: string[][] = [];
  for (const [label, command, era] of servers) {
    context.log(`eras: ${label}: ${reps.spawns} spawns, ${reps.calls} tools/list...`);
    const figures = await measure(command, era, reps);
    rows.push([label, formatSummary(figures.startup), formatSummary(figures.request)]);
  }
  return {
    tables: [{
      columns: ["server, era", "start-up to first answer, ms", "tools/list round trip, ms"],
      rows,
    }],
    notes: [
      "Start-up runs from spawn to the first answer: `initialize` for 2025-11-25, " +
      "`server/discover` for 2026-07-28 (which has no handshake). Every server runs under the " +
      "same Deno with the same trusted flags. The floors answer one trivial tool; the 1.x row " +
      "is the SDK line skillgate left (issue 12), kept as a second reference.",
    ],
  };
}
