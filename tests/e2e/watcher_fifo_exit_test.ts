/**
 * Attack (found while driving issue 11 item 6's start-up race): a FIFO
 * renamed through a watched skill folder blocked Deno's file-watcher thread
 * for good (it opened event paths), and closing that watcher blocked the
 * worker, so skillgate never exited at the end of its input. The watch is
 * now the trusted part's inotify (it opens nothing): no thread waits, and
 * skillgate exits at the end of its input.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import { eventually, isAlive } from "../support/processes.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

/** Whether a thread of `pid` waits in a FIFO open (the kernel's `wait_for_partner`). */
function hasThreadInFifoOpen(pid: number): boolean {
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const wchan = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/wchan`);
      if (wchan.includes("wait_for_partner")) return true;
    }
  } catch {
    // The process ended while we looked.
  }
  return false;
}

Deno.test("attack: a FIFO renamed through a watched skill folder does not keep skillgate from exiting at the end of input", async () => {
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo"), "stage/x": "x\n" });
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand(["serve", tree.path]),
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    await writer.write(new TextEncoder().encode(INITIALIZE + "\n"));
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.match(out, /"protocolVersion"/, "the server answered initialize");
    // The watcher runs once the server answers; a FIFO renamed in is what blocks its thread.
    // FIFOs renamed into a watched skill folder: Deno's watchFs thread opened each event's path
    // and waited there for good; the inotify watch opens nothing.
    for (let attempt = 0; attempt < 3; attempt++) {
      const fifo = join(tree.path, "stage", `f${attempt}`);
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert.ok(made.success);
      await Deno.rename(fifo, join(tree.path, "demo", `pipe${attempt}`));
      await eventually(() => hasThreadInFifoOpen(child.pid), 1);
    }
    assert.ok(!hasThreadInFifoOpen(child.pid), "no thread of skillgate waits in a FIFO open");
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill_list" } };
    await writer.write(
      new TextEncoder().encode(INITIALIZED + "\n" + JSON.stringify(call) + "\n"),
    );
    while (!out.includes('"id":2')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.match(out, /"id":2/, "skill_list answered");
    await writer.close();
    const exited = await eventually(() => !isAlive(child.pid), 30);
    if (!exited) child.kill("SIGKILL");
    assert.ok(exited, "skillgate exited at the end of its input");
    assert.equal((await child.status).code, 0);
  } finally {
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    if (isAlive(child.pid)) child.kill("SIGKILL");
    await child.status;
  }
});
