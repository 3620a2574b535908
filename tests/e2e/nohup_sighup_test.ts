/**
 * Behaviour (r13, seen and left alone in session 9): `nohup skillgate serve
 * ...` is how a user keeps a server alive after logging out, but Deno's
 * first signal listener replaces the ignored disposition nohup set, so a
 * hangup still stopped the server. The trusted part now reads which signals
 * it was started with ignored (`src/sandbox/ignored_signals.ts`) and gives
 * those a listener that does nothing.
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { isAlive } from "../support/processes.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("a server started under a real nohup keeps SIGHUP ignored and goes on serving after a hangup", async () => {
  await using tree = await makeTree({
    "skills/hello/SKILL.md": "---\nname: hello\ndescription: Says hello.\n---\n# Hello\n",
  });
  const transport = new StdioClientTransport({
    command: "nohup",
    args: [Deno.execPath(), ...programCommand(["serve", tree.at("skills")])],
    env: programEnv(),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "nohup-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null, "the server's pid");
  try {
    // Listening has started by the first answer.
    await client.listTools();
    Deno.kill(pid, "SIGHUP");
    Deno.kill(pid, "SIGHUP"); // a second shutdown signal would mean "exit now"
    for (let round = 0; round < 3; round++) {
      const tools = await client.listTools();
      assert.ok(tools.tools.length > 0, `the server answers after the hangup\n${stderr}`);
    }
    assert.ok(isAlive(pid), `the server lives on\n${stderr}`);
  } finally {
    await client.close().catch(() => {});
  }
});
