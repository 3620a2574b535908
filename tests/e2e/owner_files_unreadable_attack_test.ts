/**
 * Session 13, hA: every request but `initialize` and `ping` waits for the
 * trusted part's first read of the owner's files (review r17, hB-1). That
 * wait must never hang: a file planted after start-up's read that cannot be
 * read (a FIFO as overrides.json or config.json) refuses the waiting
 * requests at once, clearly (a tool error for `tools/call`, JSON-RPC -32603
 * otherwise, one stderr line naming the file and what to do), and never
 * serves them on start-up's overrides; once the owner fixes the file, the
 * next request is served under it. The real program over stdio, raw
 * JSON-RPC lines (the FIFO must be planted between start-up's read and the
 * first answer). The bound itself (`OWNER_FILES_WAIT_MS`, 5 s, for a read
 * that never ends, e.g. a hung mount, which a test cannot make) is checked
 * in tests/worker/owner_files_gate_test.ts and
 * tests/mcp/tools/owner_files_wait_attack_test.ts. Waits have ceilings in
 * seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { OWNER_FILES_WAIT_MS } from "../../src/worker/owner_files_gate.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";

const CEILING_MS = 20_000;

type Answer = {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/**
 * A stdio server over skills alpha and beta, its owner folder made but
 * empty, serving (start line seen: start-up read the owner's files).
 * Disposing it ends the server and removes the folder.
 */
async function serving() {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-owner-unreadable-" });
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
  const answers = new Map<number, Answer>();
  const server = {
    folder,
    log,
    send: (...messages: string[]) =>
      input.write(new TextEncoder().encode(messages.map((line) => `${line}\n`).join(""))),
    /** Waits (with a ceiling) until stderr matches `pattern`; it is read apart from stdout. */
    async logged(pattern: RegExp): Promise<void> {
      const deadline = Date.now() + CEILING_MS;
      while (!pattern.test(log.stderr)) {
        assert.ok(Date.now() < deadline, `not logged: ${pattern}: ${log.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** The answer to request `id` (answers to others kept for their turn, notifications skipped). */
    async answer(id: number): Promise<Answer> {
      while (!answers.has(id)) {
        const answer: Answer = JSON.parse(await nextLine());
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
  const deadline = Date.now() + CEILING_MS;
  while (!/serving 2 skills/.test(log.stderr)) {
    assert.ok(Date.now() < deadline, `no start line: ${log.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return server;
}

const skillList = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "skill_list", arguments: {} },
  });
const skillsList = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "skills/list", params: {} });

async function mkfifo(path: string): Promise<void> {
  assert.equal((await new Deno.Command("mkfifo", { args: [path] }).output()).code, 0);
}

/** The tool error's JSON text of a `tools/call` answer (fails when it is no tool error). */
function toolErrorOf(answer: Answer): { error: string; message: string; hint: string } {
  assert.equal(answer.result?.isError, true, JSON.stringify(answer));
  const [block] = answer.result?.content as { type: string; text: string }[];
  return JSON.parse(block!.text);
}

Deno.test("attack (s13 hA): a FIFO planted as overrides.json before the first answer does not hang skill_list: it is refused at once with a clear error (never served on start-up's overrides), and served once the owner fixes the file", async () => {
  await using server = await serving();
  await mkfifo(`${server.folder}/overrides.json`);
  const started = performance.now();
  await server.send(INITIALIZE, INITIALIZED, skillList(2), skillsList(3));
  const refused = toolErrorOf(await server.answer(2));
  const listing = await server.answer(3);
  const elapsedMs = performance.now() - started;
  assert.equal(refused.error, "OWNER_SETTINGS_UNREAD", JSON.stringify(refused));
  assert.match(refused.message, /could not read its owner's settings \("overrides\.json"\)/);
  assert.doesNotMatch(refused.message, new RegExp(server.folder), "a host path went to the client");
  assert.equal(listing.error?.code, -32603, JSON.stringify(listing));
  assert.match(listing.error!.message, /overrides\.json.*ask again/);
  // A failed read settles at once: no request waits out the bound.
  assert.ok(elapsedMs < OWNER_FILES_WAIT_MS, `refused after ${elapsedMs} ms`);
  await server.logged(
    new RegExp(
      `${server.folder}/overrides\\.json could not be read since start-up, so no request is answered.*fix or remove it`,
    ),
  );
  // The owner replaces it with a regular file that turns alpha off: the next request is served
  // under it (read again at its change or at that request); alpha is never served meanwhile.
  await Deno.remove(`${server.folder}/overrides.json`);
  await Deno.writeTextFile(
    `${server.folder}/overrides.json`,
    JSON.stringify({ skills: { alpha: { enabled: false } } }),
  );
  const deadline = Date.now() + CEILING_MS;
  for (let id = 4;; id++) {
    assert.ok(Date.now() < deadline, `never served: ${server.log.stderr}`);
    await server.send(skillList(id));
    const answer = await server.answer(id);
    if (answer.result?.isError === true) {
      assert.equal(toolErrorOf(answer).error, "OWNER_SETTINGS_UNREAD");
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const listed = answer.result?.structuredContent as { skills: { name: string }[] };
    assert.deepEqual(listed.skills.map((skill) => skill.name), ["beta"]);
    break;
  }
});

Deno.test("attack (s13 hA): a FIFO planted as config.json before the first answer refuses the listing at once, naming config.json", async () => {
  await using server = await serving();
  await mkfifo(`${server.folder}/config.json`);
  await server.send(INITIALIZE, INITIALIZED, skillsList(2), skillList(3));
  const listing = await server.answer(2);
  assert.equal(listing.error?.code, -32603, JSON.stringify(listing));
  assert.match(listing.error!.message, /could not read its owner's settings \("config\.json"\)/);
  assert.equal(toolErrorOf(await server.answer(3)).error, "OWNER_SETTINGS_UNREAD");
  await server.logged(/config\.json:1:1: config-invalid: is not a regular file \(it is a FIFO\)/);
  await server.logged(/config\.json could not be read since start-up/);
});
