/**
 * `primeStdin()` (issue 13): the worker starts reading stdin before the
 * transport is connected. Nothing may be lost, reordered or cut by it: the
 * transport connected later receives every message whole and in order, those
 * buffered by the early read and those written after, and still sees stdin
 * end, also when stdin ended before the transport started.
 */

import assert from "node:assert/strict";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

const FIXTURE = "tests/transports/_prime_stdin_fixture.ts";

const message = (id: number, pad = "") =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad } });

/**
 * Runs the fixture: `before` is written (and stdin closed if `endsBefore`)
 * before the transport connects, `after` once it may (stdin then closed).
 * Waits for the fixture's own lines, never for a time.
 */
async function runFixture(
  before: string,
  after: string,
  endsBefore: boolean,
): Promise<string[]> {
  await using dir = await tempDir();
  const goFile = `${dir.path}/go`;
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand([goFile], FIXTURE),
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const nextLine = async (): Promise<string | null> => {
    for (;;) {
      const at = pending.indexOf("\n");
      if (at >= 0) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      pending += value;
    }
  };
  assert.equal(await nextLine(), "PRIMED");
  if (before !== "") await writer.write(encoder.encode(before));
  if (endsBefore) await writer.close();
  // The primed read takes what was written (or the end) while the transport is not connected.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.writeTextFile(goFile, "");
  if (!endsBefore) {
    if (after !== "") await writer.write(encoder.encode(after));
    await writer.close();
  }
  for (;;) {
    const line = await nextLine();
    if (line === null) break;
    lines.push(line);
  }
  reader.releaseLock();
  const status = await child.status;
  const stderr = await new Response(child.stderr).text();
  assert.equal(status.code, 0, stderr);
  return lines;
}

async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "skillgate-prime-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("primeStdin() takes nothing from the transport: messages written before and after it connects arrive whole, in order, then stdin's end", async () => {
  const long = "x".repeat(200_000); // more than one read's worth: buffered in part, read on after
  const first = message(1);
  const second = message(2, long);
  const third = message(3);
  // The second message is cut in two: half before the transport connects, half after.
  const cut = Math.floor(second.length / 2);
  const lines = await runFixture(
    `${first}\n${second.slice(0, cut)}`,
    `${second.slice(cut)}\n${third}\n`,
    false,
  );
  assert.deepEqual(lines, [first, second, third, "END"]);
});

Deno.test("primeStdin() on a stdin that ends before the transport connects: its messages and its end still reach the transport", async () => {
  const first = message(1);
  assert.deepEqual(await runFixture(`${first}\n`, "", true), [first, "END"]);
  assert.deepEqual(await runFixture("", "", true), ["END"]);
});
