/**
 * Review r15, against branch h11 ("every exit of the trusted part ends
 * script groups first; SIGQUIT handled"): SHUTDOWN_SIGNALS now covers
 * SIGTERM, SIGINT, SIGHUP and SIGQUIT, but every other signal whose default
 * action ends a process still ends the trusted part at once, past
 * `exitProcess`, so in process-group isolation a running script outlives
 * the server. SIGXCPU is the one the kernel itself sends (the owner's
 * `ulimit -t` soft limit reached: a long-serving process meets it), and
 * SIGALRM is one a stray `kill -ALRM` (or an alarm(2) left by a preloaded
 * library) sends. (SIGUSR1 does not end Deno 2.9.6: measured.)
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { eventually, isAlive, liveProcessesWith } from "../support/processes.ts";
import { makeTree } from "../skills/_tree.ts";

for (const signal of ["SIGXCPU", "SIGALRM"] as const) {
  Deno.test(`attack: ${signal} to a stdio server leaves no script of its running (--isolation=group)`, async () => {
    const mark = `${20 + Math.floor(Math.random() * 30)}.${Date.now() % 1_000_000}`;
    await using tree = await makeTree({
      "skills/sleeper/SKILL.md": "---\nname: sleeper\ndescription: Sleeps.\nmcp-host:\n" +
        "  version: 1\n  run:\n    - script: scripts/sleep.sh\n      interpreter: sh\n" +
        "      timeout: 60\n---\n# Sleeper\n",
      "skills/sleeper/scripts/sleep.sh": `echo started\nexec sleep ${mark}\n`,
    });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: programCommand(["serve", tree.at("skills"), "--isolation=group"]),
      env: programEnv({ MCP_CONFIRM_MODE: "auto" }),
      cwd: REPO_ROOT,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const client = new Client({ name: "signal-test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid;
    assert.ok(pid !== null, "the server's pid");
    const call = client.callTool({
      name: "skill_run",
      arguments: { name: "sleeper", script: "scripts/sleep.sh" },
    }).catch(() => null);
    try {
      assert.ok(await eventually(() => liveProcessesWith(`sleep ${mark}`).length > 0, 30), stderr);
      Deno.kill(pid, signal);
      assert.ok(await eventually(() => !isAlive(pid), 20), `the server exits\n${stderr}`);
      assert.ok(
        await eventually(() => liveProcessesWith(`sleep ${mark}`).length === 0, 20),
        `no script outlives the server ended by ${signal}`,
      );
    } finally {
      for (const left of liveProcessesWith(`sleep ${mark}`)) Deno.kill(left, "SIGKILL");
      await call;
      await client.close().catch(() => {});
    }
  });
}
