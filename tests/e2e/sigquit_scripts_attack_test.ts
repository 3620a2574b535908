/**
 * Attack (r13, seen and left alone in session 9): Ctrl-backslash at the
 * terminal a stdio server runs in sends SIGQUIT. skillgate listened for
 * SIGTERM, SIGINT and SIGHUP only, so Deno's default for SIGQUIT (terminate,
 * core dump) ended the trusted part at once: neither the worker's
 * `stopAll()` nor the trusted killer ran, and in process-group isolation
 * every running script outlived the server. SIGQUIT is now one of
 * `SHUTDOWN_SIGNALS` (`src/transports/http/shutdown_signals.ts`).
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { eventually, isAlive, liveProcessesWith } from "../support/processes.ts";
import { makeTree } from "../skills/_tree.ts";

const MARK = `${20 + Math.floor(Math.random() * 30)}.${Date.now() % 1_000_000}`;

Deno.test("attack: SIGQUIT (Ctrl-backslash) to a stdio server leaves no script of its running (--isolation=group)", async () => {
  await using tree = await makeTree({
    "skills/sleeper/SKILL.md": "---\nname: sleeper\ndescription: Sleeps.\nmcp-host:\n" +
      "  version: 1\n  run:\n    - script: scripts/sleep.sh\n      interpreter: sh\n" +
      "      timeout: 60\n---\n# Sleeper\n",
    "skills/sleeper/scripts/sleep.sh": `echo started\nexec sleep ${MARK}\n`,
  });
  const transport = new StdioClientTransport({
    // A job a non-interactive shell starts in the background (CI's runner, `cmd &`) inherits
    // SIGQUIT ignored, and skillgate keeps a signal it started with ignored (as POSIX programs
    // do): SIGQUIT is set back to its default for this server, as at an interactive terminal
    // (GNU env, coreutils 8.31+; it execs the server, so the pid stays the server's).
    command: "env",
    args: [
      "--default-signal=QUIT",
      Deno.execPath(),
      ...programCommand(["serve", tree.at("skills"), "--isolation=group"]),
    ],
    env: programEnv({ MCP_CONFIRM_MODE: "auto" }),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "sigquit-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null, "the server's pid");
  const call = client.callTool({
    name: "skill_run",
    arguments: { name: "sleeper", script: "scripts/sleep.sh" },
  }).catch(() => null);
  try {
    assert.ok(await eventually(() => liveProcessesWith(`sleep ${MARK}`).length > 0, 30), stderr);
    Deno.kill(pid, "SIGQUIT");
    assert.ok(await eventually(() => !isAlive(pid), 20), `the server exits\n${stderr}`);
    assert.ok(
      await eventually(() => liveProcessesWith(`sleep ${MARK}`).length === 0, 20),
      "no script outlives the server ended by SIGQUIT",
    );
  } finally {
    for (const left of liveProcessesWith(`sleep ${MARK}`)) Deno.kill(left, "SIGKILL");
    await call;
    await client.close().catch(() => {});
  }
});
