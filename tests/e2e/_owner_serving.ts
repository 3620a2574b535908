/**
 * The real program over stdio, started as a client starts it, on two skills
 * (alpha, beta) in a temporary folder, its owner folder
 * (`XDG_CONFIG_HOME/skillgate`) made but empty: what the owner-file tests
 * plant their edits and hostile files in. Shared by
 * `owner_edit_before_first_answer_test.ts` and
 * `owner_files_unreadable_attack_test.ts`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

/** Longest any wait here lasts, in ms. */
export const OWNER_SERVING_CEILING_MS = 20_000;

/** One JSON-RPC answer as read from stdout. */
export type OwnerServingAnswer = {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/** A serving program and the ways to talk to it; disposing it ends it and removes its folder. */
export interface OwnerServing extends AsyncDisposable {
  /** The owner's folder (`overrides.json`, `config.json` go there). */
  readonly folder: string;
  /** Everything it wrote on stderr so far. */
  readonly log: { stderr: string };
  /** Writes each message on a line of its own, all in one write. */
  send(...messages: string[]): Promise<void>;
  /** The answer to request `id` (answers to others kept for their turn, notifications skipped). */
  answer(id: number): Promise<OwnerServingAnswer>;
  /** Waits (at most the ceiling) until stderr matches `pattern`. */
  logged(pattern: RegExp): Promise<void>;
}

/**
 * Starts the program and waits for its start line (`serving 2 skills`): by
 * then start-up has read the owner's files, and no request was sent.
 *
 * @param prefix The temporary folder's name prefix.
 * @returns The serving program.
 * @throws {AssertionError} When no start line comes within the ceiling.
 *
 * Requires `--allow-all` (a temporary folder, spawning the program).
 */
export async function startOwnerServing(prefix: string): Promise<OwnerServing> {
  const dir = await Deno.makeTempDir({ prefix });
  for (const name of ["alpha", "beta"]) {
    await Deno.mkdir(`${dir}/skills/${name}`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/skills/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: The ${name} skill\n---\nSteps.\n`,
    );
  }
  const folder = `${dir}/config/skillgate`;
  await Deno.mkdir(folder, { recursive: true });
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand(["serve", `${dir}/skills`]),
    env: programEnv({ XDG_CONFIG_HOME: `${dir}/config`, XDG_CACHE_HOME: `${dir}/cache` }),
    clearEnv: true,
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const input = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const errors = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const log = { stderr: "" };
  const readErrors = (async () => {
    for (;;) {
      const { value, done } = await errors.read();
      if (done) return;
      log.stderr += value;
    }
  })();
  const nextLine = async (): Promise<string> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`the server closed stdout: ${log.stderr}`);
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return line;
  };
  const answers = new Map<number, OwnerServingAnswer>();
  const logged = async (pattern: RegExp): Promise<void> => {
    const deadline = Date.now() + OWNER_SERVING_CEILING_MS;
    while (!pattern.test(log.stderr)) {
      assert.ok(Date.now() < deadline, `not logged: ${pattern}: ${log.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const server: OwnerServing = {
    folder,
    log,
    send: (...messages: string[]) =>
      input.write(new TextEncoder().encode(messages.map((line) => `${line}\n`).join(""))),
    logged,
    async answer(id: number): Promise<OwnerServingAnswer> {
      while (!answers.has(id)) {
        const answer: OwnerServingAnswer = JSON.parse(await nextLine());
        if (answer.id !== undefined) answers.set(answer.id, answer);
      }
      return answers.get(id)!;
    },
    async [Symbol.asyncDispose]() {
      await input.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
      await readErrors;
      await Deno.remove(dir, { recursive: true });
    },
  };
  try {
    await logged(/serving 2 skills/);
  } catch (error) {
    await server[Symbol.asyncDispose]();
    throw error;
  }
  return server;
}

/**
 * A `tools/call` of `skill_list` with no arguments.
 *
 * @param id The request id.
 * @returns The JSON-RPC line.
 */
export function skillListRequest(id: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "skill_list", arguments: {} },
  });
}
