/**
 * The one smoke check of a skillgate command, used by `make compile` (on what it built), the
 * release workflow (on each binary, on its own OS) and the tests (on `deno run` with the trusted
 * flags and `main.ts`, the stand-in for a binary where denort cannot be had).
 *
 *   deno run --allow-all .ci/smoke.ts [--skills=DIR] -- COMMAND [ARG...]
 *
 * COMMAND [ARG...] starts skillgate (e.g. `dist/skillgate-linux-x64`, or `npx skillgate`). The
 * smoke runs, in order, and stops at the first failure with the reason on stderr and exit 1:
 *   1. `COMMAND --version`: exit 0, stdout exactly `skillgate X.Y.Z`;
 *   2. `COMMAND permissions --json DIR`: exit 0, stdout one JSON object with the worker's set;
 *   3. `COMMAND serve DIR` over stdio: `initialize`, `tools/list` (skill_list and skill_load
 *      offered), `skill_list` (every skill of DIR listed), `skill_load` of the first one (its
 *      body answered); every stdout line must be a JSON-RPC message (stdout is protocol-only).
 * Then it prints what holds on this OS: the isolation mode `skill_list` reports and its note
 * (the path gate's descriptor check and script isolation are Linux-specific).
 *
 * DIR defaults to examples/skills beside this script. Each step has a hang guard
 * (SMOKE_STEP_TIMEOUT_MS, default 120000 ms, for a first `npx` run that installs); it is a guard,
 * not a measurement. Exit: 0 when every step passed, 1 on a failed step, 2 on a usage error.
 *
 * Permissions: --allow-run (the command), --allow-read (DIR), --allow-env (the timeout).
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The protocol revision the smoke asks for (MCP 2025-11-25). */
const PROTOCOL_VERSION = "2025-11-25";

/** A failed step: its message is the reason the smoke prints. */
class SmokeFailure extends Error {}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function stepTimeoutMs(): number {
  const text = Deno.env.get("SMOKE_STEP_TIMEOUT_MS");
  const value = text === undefined ? 120_000 : Number(text);
  return Number.isInteger(value) && value > 0 ? value : 120_000;
}

function say(text: string): void {
  console.error(`smoke: ${text}`);
}

/** Runs COMMAND with extra arguments, stdin closed, and a hang guard. */
async function run(command: readonly string[], args: readonly string[]): Promise<Ran> {
  const child = new Deno.Command(command[0]!, {
    args: [...command.slice(1), ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const guard = setTimeout(() => child.kill("SIGKILL"), stepTimeoutMs());
  try {
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(guard);
  }
}

function tail(text: string): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-8).map((line) => `    ${line}`).join("\n");
}

async function checkVersion(command: readonly string[]): Promise<string> {
  const ran = await run(command, ["--version"]);
  if (ran.code !== 0) {
    throw new SmokeFailure(`--version exited ${ran.code}; its stderr ends:\n${tail(ran.stderr)}`);
  }
  const match = /^skillgate (\d+\.\d+\.\d+\S*)\n$/.exec(ran.stdout);
  if (match === null) {
    throw new SmokeFailure(
      `--version printed ${JSON.stringify(ran.stdout.slice(0, 200))}, not "skillgate X.Y.Z"`,
    );
  }
  return match[1]!;
}

async function checkPermissions(command: readonly string[], skills: string): Promise<void> {
  const ran = await run(command, ["permissions", "--json", skills]);
  if (ran.code !== 0) {
    throw new SmokeFailure(
      `permissions --json exited ${ran.code}; its stderr ends:\n${tail(ran.stderr)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(ran.stdout);
  } catch {
    throw new SmokeFailure("permissions --json did not print one JSON document on stdout");
  }
  const worker = (parsed as { worker?: { read?: unknown } }).worker;
  if (!Array.isArray(worker?.read)) {
    throw new SmokeFailure("permissions --json printed no worker.read list");
  }
}

/** A stdio MCP session with the command: one JSON-RPC message per line. */
class Session {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;
  #stderr: Promise<string>;
  #nextId = 1;

  constructor(command: readonly string[], args: readonly string[]) {
    this.#child = new Deno.Command(command[0]!, {
      args: [...command.slice(1), ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = readLines(this.#child.stdout)[Symbol.asyncIterator]();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  async notify(method: string, params?: unknown): Promise<void> {
    await this.#send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Sends a request and returns its result; an error answer or a non-JSON line fails. */
  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    try {
      await this.#send({ jsonrpc: "2.0", id, method, params });
    } catch (error) {
      throw new SmokeFailure(
        `${method}: the server stopped reading stdin (${
          error instanceof Error ? error.message : String(error)
        }); its stderr ends:\n${tail(await this.#stderrSoon())}`,
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SmokeFailure(`${method}: no answer within ${stepTimeoutMs()} ms`)),
        stepTimeoutMs(),
      );
    });
    try {
      return await Promise.race([this.#answer(method, id), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #answer(method: string, id: number): Promise<Record<string, unknown>> {
    while (true) {
      const next = await this.#lines.next();
      if (next.done) {
        throw new SmokeFailure(
          `${method}: the server closed stdout before answering; its stderr ends:\n${
            tail(await this.#stderrSoon())
          }`,
        );
      }
      let message: { id?: unknown; result?: unknown; error?: { message?: unknown } };
      try {
        message = JSON.parse(next.value);
      } catch {
        throw new SmokeFailure(
          `stdout carried a line that is not JSON-RPC: ${JSON.stringify(next.value.slice(0, 120))}`,
        );
      }
      if (message.id !== id) continue; // a notification or a server request
      if (message.error !== undefined) {
        throw new SmokeFailure(`${method} answered an error: ${String(message.error.message)}`);
      }
      return message.result as Record<string, unknown>;
    }
  }

  async #send(message: unknown): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  }

  async #stderrSoon(): Promise<string> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already exited
    }
    return await this.#stderr;
  }

  /** Closes stdin (the client's goodbye) and waits for the exit; kills it after the guard. */
  async close(): Promise<number> {
    await this.#writer.close().catch(() => {});
    const guard = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // already exited
      }
    }, stepTimeoutMs());
    try {
      const status = await this.#child.status;
      await this.#lines.return?.();
      await this.#stderr;
      return status.code;
    } finally {
      clearTimeout(guard);
    }
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, "");
      buffered = buffered.slice(newline + 1);
      if (line.length > 0) yield line;
    }
  }
  if (buffered.length > 0) yield buffered;
}

function toolText(result: Record<string, unknown>, tool: string): unknown {
  if (result.isError === true) {
    throw new SmokeFailure(`${tool} answered a tool error: ${JSON.stringify(result.content)}`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = (result.content as { type?: string; text?: string }[] | undefined)?.[0];
  if (first?.type !== "text" || typeof first.text !== "string") {
    throw new SmokeFailure(`${tool} answered no text content`);
  }
  return JSON.parse(first.text);
}

async function skillNames(skills: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(skills)) {
    if (entry.isDirectory) names.push(entry.name);
  }
  return names.sort();
}

async function checkSession(command: readonly string[], skills: string): Promise<string> {
  const expected = await skillNames(skills);
  if (expected.length === 0) throw new SmokeFailure(`no skill folders in ${skills}`);
  const session = new Session(command, ["serve", skills]);
  let closed = false;
  try {
    const init = await session.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "skillgate-smoke", version: "1.0.0" },
    });
    const serverInfo = init.serverInfo as { name?: string } | undefined;
    if (serverInfo?.name !== "skillgate") {
      throw new SmokeFailure(`initialize: serverInfo.name is ${JSON.stringify(serverInfo?.name)}`);
    }
    await session.notify("notifications/initialized");
    const tools = await session.request("tools/list", {});
    const offered = ((tools.tools ?? []) as { name: string }[]).map((tool) => tool.name);
    for (const name of ["skill_list", "skill_load"]) {
      if (!offered.includes(name)) {
        throw new SmokeFailure(
          `tools/list does not offer ${name} (offered: ${offered.join(", ")})`,
        );
      }
    }
    const list = toolText(
      await session.request("tools/call", { name: "skill_list", arguments: {} }),
      "skill_list",
    ) as { skills?: { name: string }[]; isolation?: { mode?: string; note?: string } };
    const listed = (list.skills ?? []).map((skill) => skill.name);
    for (const name of expected) {
      if (!listed.includes(name)) {
        throw new SmokeFailure(`skill_list does not list ${name} (listed: ${listed.join(", ")})`);
      }
    }
    const load = toolText(
      await session.request("tools/call", { name: "skill_load", arguments: { name: expected[0] } }),
      "skill_load",
    ) as { name?: string; body?: string };
    if (load.name !== expected[0] || typeof load.body !== "string" || load.body.length === 0) {
      throw new SmokeFailure(`skill_load of ${expected[0]} answered no body`);
    }
    closed = true;
    const code = await session.close();
    if (code !== 0) throw new SmokeFailure(`serve exited ${code} after stdin closed, not 0`);
    const isolation = list.isolation;
    return isolation === undefined
      ? "skill_list reports no isolation facts (no skill declares scripts)"
      : `isolation ${isolation.mode ?? "?"}${isolation.note ? `: ${isolation.note}` : ""}`;
  } finally {
    if (!closed) await session.close().catch(() => {});
  }
}

/**
 * Runs the smoke on a command.
 *
 * @param command The skillgate command and its leading arguments (non-empty).
 * @param skills The skills folder served (absolute or relative to the working directory).
 * @returns 0 when every step passed, 1 when one failed (the reason is on stderr).
 */
export async function smoke(command: readonly string[], skills: string): Promise<number> {
  const shown = command.join(" ");
  try {
    const version = await checkVersion(command);
    say(`--version: skillgate ${version}`);
    await checkPermissions(command, skills);
    say("permissions --json: the worker's permission set printed");
    const holds = await checkSession(command, skills);
    say("stdio session: initialize, tools/list, skill_list, skill_load answered");
    say(`on ${Deno.build.os}-${Deno.build.arch}: ${holds}`);
    say(`PASSED: ${shown}`);
    return 0;
  } catch (error) {
    if (error instanceof SmokeFailure) {
      say(`FAILED: ${shown}: ${error.message}`);
      return 1;
    }
    if (error instanceof Deno.errors.NotFound) {
      say(`FAILED: ${shown}: the command does not exist`);
      return 1;
    }
    say(`FAILED: ${shown}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) {
  const args = [...Deno.args];
  let skills = fileURLToPath(new URL("../examples/skills", import.meta.url));
  while (args.length > 0 && args[0] !== "--") {
    const option = args.shift()!;
    if (option.startsWith("--skills=")) skills = option.slice("--skills=".length);
    else {
      say(`unknown option ${option}; usage: smoke.ts [--skills=DIR] -- COMMAND [ARG...]`);
      Deno.exit(2);
    }
  }
  args.shift();
  if (args.length === 0) {
    say("usage: smoke.ts [--skills=DIR] -- COMMAND [ARG...]");
    Deno.exit(2);
  }
  Deno.exit(await smoke(args, skills));
}
