/**
 * The owner-file watch opens after the first answer (issue 13,
 * src/config/file/deferred_owner_watch.ts): an owner's edit made after
 * start-up read the files but before that answer must still apply. Review
 * r17, hB-1: it must be in force for the very first tool call (every tool
 * call waits until the trusted part read both files once), not only once the
 * watch is live. Waits have ceilings in seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";

const CEILING_MS = 20_000;

/**
 * A stdio server over two skills in a temporary folder, its owner folder made
 * but empty, serving (start line seen); `turnAlphaOff()` writes the owner's
 * edit. Disposing it ends the server and removes the folder.
 */
async function serving() {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-owner-before-answer-" });
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
  const server = {
    folder,
    log,
    deadline: Date.now() + CEILING_MS,
    send: (line: string) => input.write(new TextEncoder().encode(`${line}\n`)),
    async nextLine(): Promise<string> {
      while (!buffered.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("the server closed stdout");
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return line;
    },
    /** The skills the answer to `skill_list` call `id` names (the call sent first). */
    async listed(id: number): Promise<string[]> {
      let answer: { id?: number; result?: { structuredContent?: { skills: { name: string }[] } } };
      do answer = JSON.parse(await server.nextLine()); while (answer.id !== id);
      return answer.result?.structuredContent?.skills.map((skill) => skill.name) ?? [];
    },
    turnAlphaOff: () =>
      Deno.writeTextFile(
        `${folder}/overrides.json`,
        JSON.stringify({ skills: { alpha: { enabled: false } } }),
      ),
    async [Symbol.asyncDispose]() {
      await input.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
      await readErrors;
      await Deno.remove(dir, { recursive: true });
    },
  };
  // Serving (its start line): start-up read both files; no request was sent, so no answer.
  while (!/serving 2 skills/.test(log.stderr)) {
    assert.ok(Date.now() < server.deadline, `no start line: ${log.stderr}`);
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

Deno.test("an overrides.json edit made before the first answer applies once the owner-file watch is live", async () => {
  await using server = await serving();
  await server.turnAlphaOff();
  await server.send(INITIALIZE);
  assert.match(await server.nextLine(), /"id":1,"result"|"result".*"id":1/);
  await server.send(INITIALIZED);
  let id = 1;
  let names: string[] = [];
  while (Date.now() < server.deadline) {
    id++;
    await server.send(skillList(id));
    names = await server.listed(id);
    if (!names.includes("alpha")) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(names, ["beta"], `the edit was not applied: ${server.log.stderr}`);
});

Deno.test("attack (r17 hB-1): an overrides.json edit that turns a skill off before the first answer is in force for the very first tool call, sent with initialize", async () => {
  await using server = await serving();
  await server.turnAlphaOff();
  // All at once: the tool call reaches the worker before the owner files' watch is open.
  await server.send([INITIALIZE, INITIALIZED, skillList(2)].join("\n"));
  assert.deepEqual(await server.listed(2), ["beta"], `a turned-off skill was served`);
});
