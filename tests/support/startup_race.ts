/**
 * The start-up swap race of issue 11 item 6, shared by the bounded CI test
 * (`tests/e2e/startup_race_test.ts`) and the longer loop in `make bench`
 * (`bench/sections/startup_race.ts`): a swapper flips a skill's SKILL.md
 * between a real file, a symlink to a secret file outside the skill and a
 * FIFO, while the real program starts again and again (alternately with the
 * catalog built by the trusted part, which happens when a grant names a
 * script, and by the worker), answers `skill_list`, `skill_load` and
 * `resources/list`, and ends. Counted: starts, answers that carried the
 * secret, starts that did not answer within the hang bound.
 *
 * @module
 */

import { join } from "node:path";
import { INITIALIZE, INITIALIZED } from "./mcp_messages.ts";
import { programCommand, programEnv, REPO_ROOT } from "./program.ts";

/** The marker in the outside file; it must never reach an answer. */
export const SECRET_MARKER = "SECRET-7f3a-OUTSIDE";

/** Bounds of one race run. */
export interface StartupRaceOptions {
  /** Starts at most. */
  readonly maxStarts: number;
  /** Wall-clock budget of the whole loop in ms (no new start after it). */
  readonly maxMs: number;
  /** A start that has not answered (or ended) within this many ms counts as hung and is killed. */
  readonly hangMs: number;
  /** Progress lines (stderr). @default none */
  readonly log?: (line: string) => void;
}

/** What one race run saw. */
export interface StartupRaceResult {
  readonly starts: number;
  /** Starts whose catalog the trusted part built (a grant named a script). */
  readonly trustedBuilds: number;
  /** Starts in which `skill_load race` served the real skill. */
  readonly served: number;
  /** Starts whose stdout or stderr held {@linkcode SECRET_MARKER} (must be 0). */
  readonly leaks: number;
  /** Starts that did not answer or end within `hangMs` (must be 0). */
  readonly hangs: number;
  /** Time from spawn to the last answer, per start, in ms. */
  readonly answerMs: readonly number[];
  /** After the swapper stopped, a fresh start served the real skill. */
  readonly calmServes: boolean;
}

const REAL = "---\nname: race\ndescription: The real race skill.\n---\nREAL-BODY\n";
const SECRET = `---\nname: race\ndescription: ${SECRET_MARKER}\n---\n${SECRET_MARKER} body\n`;

const SWAPPER = `
import os, sys, time
skill_md, secret, stage, stop, seconds = sys.argv[1:6]
real = open(os.path.join(stage, "real.md")).read()
end = time.time() + float(seconds)
i = 0
while time.time() < end and not os.path.exists(stop):
    i += 1
    link = os.path.join(stage, "l%d" % i)
    os.symlink(secret, link); os.replace(link, skill_md); time.sleep(0.001)
    fifo = os.path.join(stage, "f%d" % i)
    os.mkfifo(fifo); os.replace(fifo, skill_md); time.sleep(0.001)
    text = os.path.join(stage, "r%d" % i)
    with open(text, "w") as f: f.write(real)
    os.replace(text, skill_md); time.sleep(0.001)
`;

/**
 * Runs the race. Requires `python3` on PATH (the swapper) and the test
 * permissions (`--allow-all`).
 *
 * @param options Bounds.
 * @returns The counts; the fixture is removed.
 */
export async function runStartupRace(options: StartupRaceOptions): Promise<StartupRaceResult> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-startrace-" }));
  const root = join(base, "root");
  const stage = join(base, "stage");
  const stop = join(base, "stop");
  await Deno.mkdir(join(root, "race"), { recursive: true });
  await Deno.mkdir(stage);
  await Deno.writeTextFile(join(root, "race", "SKILL.md"), REAL);
  await Deno.writeTextFile(join(root, "race", "notes.md"), "notes\n");
  await Deno.writeTextFile(join(stage, "real.md"), REAL);
  await Deno.writeTextFile(join(base, "secret.md"), SECRET);
  const swapper = new Deno.Command("python3", {
    args: [
      "-c",
      SWAPPER,
      join(root, "race", "SKILL.md"),
      join(base, "secret.md"),
      stage,
      stop,
      String(Math.ceil(options.maxMs / 1000) + 120),
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let starts = 0;
  let trustedBuilds = 0;
  let served = 0;
  let leaks = 0;
  let hangs = 0;
  const answerMs: number[] = [];
  const startedAt = performance.now();
  try {
    while (starts < options.maxStarts && performance.now() - startedAt < options.maxMs) {
      const byTrustedPart = starts % 2 === 0;
      const outcome = await startOnce(root, byTrustedPart, options.hangMs);
      starts++;
      if (byTrustedPart) trustedBuilds++;
      if (outcome.hung) hangs++;
      if (outcome.output.includes(SECRET_MARKER)) leaks++;
      if (outcome.output.includes("REAL-BODY")) served++;
      if (!outcome.hung) answerMs.push(outcome.answerMs);
      options.log?.(
        `start ${starts}: ${outcome.hung ? "HUNG" : "answered"}` +
          `${outcome.output.includes(SECRET_MARKER) ? " LEAK" : ""}`,
      );
    }
  } finally {
    await Deno.writeTextFile(stop, "");
    await swapper.status;
  }
  try {
    await Deno.writeTextFile(join(root, "race", "SKILL.md"), REAL);
    const calm = await startOnce(root, false, options.hangMs);
    return {
      starts,
      trustedBuilds,
      served,
      leaks,
      hangs,
      answerMs,
      calmServes: !calm.hung && calm.output.includes("REAL-BODY"),
    };
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

interface StartOutcome {
  readonly hung: boolean;
  readonly output: string;
  readonly answerMs: number;
}

/** One start: initialize, three calls, end of input; killed when it passes `hangMs`. */
async function startOnce(
  root: string,
  byTrustedPart: boolean,
  hangMs: number,
): Promise<StartOutcome> {
  const env = byTrustedPart
    ? { MCP_SKILL_RUN: JSON.stringify([{ skill: "race", script: "scripts/run.sh" }]) }
    : {};
  const spawnedAt = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand(["serve", root]),
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }, hangMs);
  const writer = child.stdin.getWriter();
  const send = (line: string) => writer.write(new TextEncoder().encode(line + "\n"));
  const calls = [
    { id: 2, method: "tools/call", params: { name: "skill_list", arguments: {} } },
    { id: 3, method: "tools/call", params: { name: "skill_load", arguments: { name: "race" } } },
    { id: 4, method: "resources/list", params: {} },
  ];
  const stderrText = new Response(child.stderr).text();
  let stdout = "";
  let answerMs = 0;
  try {
    await send(INITIALIZE);
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const answered = new Set<number>();
    let sentCalls = false;
    while (answered.size < calls.length) {
      const { value, done } = await lines.read();
      if (done) break;
      stdout += value;
      buffer += value;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const id = idOf(line);
        if (id === 1 && !sentCalls) {
          sentCalls = true;
          await send(INITIALIZED);
          for (const call of calls) await send(JSON.stringify({ jsonrpc: "2.0", ...call }));
        } else if (id !== null && id >= 2) answered.add(id);
      }
    }
    answerMs = performance.now() - spawnedAt;
    await writer.close().catch(() => {});
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      stdout += value;
    }
  } catch {
    // A killed child breaks its pipes; the outcome says hung.
  } finally {
    await writer.close().catch(() => {});
    await child.status;
    clearTimeout(timer);
  }
  return { hung, output: stdout + (await stderrText), answerMs };
}

function idOf(line: string): number | null {
  try {
    const message = JSON.parse(line) as { id?: unknown };
    return typeof message.id === "number" ? message.id : null;
  } catch {
    return null;
  }
}
