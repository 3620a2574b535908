/**
 * The owner-file watch opens after the first answer (issue 13,
 * src/config/file/deferred_owner_watch.ts): an owner's edit made after
 * start-up read the files but before that answer must still apply, once the
 * watch is live (it reads both files then). Waits have ceilings in seconds;
 * nothing here measures speed.
 */

import assert from "node:assert/strict";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";

const CEILING_MS = 20_000;

Deno.test("an overrides.json edit made before the first answer applies once the owner-file watch is live", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-owner-before-answer-" });
  try {
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
    const send = (line: string) => input.write(new TextEncoder().encode(`${line}\n`));
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const nextLine = async (): Promise<string> => {
      while (!buffered.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("the server closed stdout");
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return line;
    };
    const errors = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let stderr = "";
    const readErrors = (async () => {
      for (;;) {
        const { value, done } = await errors.read();
        if (done) return;
        stderr += value;
      }
    })();
    try {
      // Serving (its start line): start-up read both files; no request was sent, so no answer.
      const deadline = Date.now() + CEILING_MS;
      while (!/serving 2 skills/.test(stderr)) {
        assert.ok(Date.now() < deadline, `no start line: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await Deno.writeTextFile(
        `${folder}/overrides.json`,
        JSON.stringify({ skills: { alpha: { enabled: false } } }),
      );
      await send(INITIALIZE);
      assert.match(await nextLine(), /"id":1,"result"|"result".*"id":1/);
      await send(INITIALIZED);
      let id = 1;
      let names: string[] = [];
      while (Date.now() < deadline) {
        id++;
        await send(JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "skill_list", arguments: {} },
        }));
        let answer: {
          id?: number;
          result?: { structuredContent?: { skills: { name: string }[] } };
        };
        do answer = JSON.parse(await nextLine()); while (answer.id !== id);
        names = answer.result?.structuredContent?.skills.map((skill) => skill.name) ?? [];
        if (!names.includes("alpha")) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(names, ["beta"], `the edit was not applied: ${stderr}`);
    } finally {
      await input.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
      await readErrors;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
