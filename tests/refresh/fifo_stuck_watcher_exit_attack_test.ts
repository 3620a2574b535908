/**
 * Attack (r13, on branch h2's watch isolate; run it there): a FIFO made in a
 * watched root holds Deno's watcher thread (its open waits for a writer), a
 * catalog change follows, and then the client ends the session by closing
 * stdin, the way every stdio client stops a server (the SDKs send SIGTERM,
 * then SIGKILL, only when it does not exit by itself). Serving going on is
 * not enough: a server that cannot exit while the FIFO is held stays behind
 * (holding its roots, its scripts' supervision, its HTTP port) until someone
 * kills it. Here the client is raw JSON-RPC over pipes, so nothing but stdin's
 * end asks the server to stop; the FIFO is released only after the verdict.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { eventually, isAlive } from "../support/processes.ts";

const SKILL = (name: string) => `---\nname: ${name}\ndescription: A skill.\n---\nBody.\n`;

Deno.test("attack: a FIFO holding the watcher, then stdin closed: the stdio server still exits by itself", async () => {
  const root = await Deno.makeTempDir({ prefix: "r13-fifo-exit-" });
  const fifo = join(root, "alpha", "pipe");
  await Deno.mkdir(join(root, "alpha"));
  await Deno.writeTextFile(join(root, "alpha", "SKILL.md"), SKILL("alpha"));
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand(["serve", root]),
    env: programEnv(),
    clearEnv: true,
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffered = "";
  let nextId = 1;
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  /** Sends a request and reads lines until its answer (nothing else is asked meanwhile). */
  const request = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    await send({ jsonrpc: "2.0", id, method, params });
    while (true) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
        if (message.id === id) return message.result ?? {};
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the server closed stdout");
      buffered += value;
    }
  };
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      const handle = await Deno.open(fifo, { read: true, write: true });
      handle.close();
    } catch {
      // No FIFO made.
    }
  };
  try {
    await request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "r13-fifo-exit", version: "1.0.0" },
    });
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0);
    await Deno.mkdir(join(root, "beta"));
    await Deno.writeTextFile(join(root, "beta", "SKILL.md"), SKILL("beta"));
    const listed = async () => {
      const result = await request("tools/call", { name: "skill_list", arguments: {} });
      const skills = (result.structuredContent as { skills: { name: string }[] }).skills;
      return skills.map((skill) => skill.name);
    };
    let names = await listed();
    for (let tries = 0; tries < 300 && !names.includes("beta"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      names = await listed();
    }
    assert.ok(names.includes("beta"), `the new skill is served (refreshing goes on): ${names}`);
    await writer.close();
    assert.ok(
      await eventually(() => !isAlive(child.pid), 30),
      "the server is still running 30 s after its client closed stdin, the FIFO still held",
    );
  } finally {
    await release();
    if (isAlive(child.pid)) child.kill("SIGKILL");
    await writer.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await child.status;
    await stderr.catch(() => "");
    await Deno.remove(root, { recursive: true });
  }
});
