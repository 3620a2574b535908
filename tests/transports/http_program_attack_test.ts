/**
 * Attacks on the real program over HTTP (started the way an owner starts it,
 * through `tests/support/http_program.ts`): SIGTERM while a chunked body is
 * unfinished, and more connections than the process has file descriptors.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startHttpProgram } from "../support/http_program.ts";
import { INITIALIZE, POST_HEADERS } from "../support/mcp_messages.ts";
import { EXAMPLES } from "./_http.ts";

const encoder = new TextEncoder();

/** Reads until the server closes the connection; true for a clean EOF, false for a reset. */
async function closedByServer(conn: Deno.Conn): Promise<boolean> {
  const buffer = new Uint8Array(4096);
  try {
    while ((await conn.read(buffer)) !== null) { /* discard */ }
    return true;
  } catch {
    return false;
  }
}

Deno.test("shutdown: SIGTERM while a chunked body is unfinished exits 0 and closes the connection", async () => {
  await using program = await startHttpProgram(["serve", EXAMPLES]);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: program.port });
  try {
    await conn.write(encoder.encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${program.port}\r\n` +
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\n',
    ));
    // Another request answered after the half body was sent: the server has read it by now.
    const health = await fetch(`${program.base}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const code = await program.stop();
    assert.equal(code, 0, `exit status 0 (the README's promise); stderr:\n${program.stderr()}`);
    assert.doesNotMatch(program.stderr(), /Cannot read request body|internal error/i);
    await closedByServer(conn); // returns: the connection is closed (EOF or reset), not held
  } finally {
    conn.close();
  }
});

Deno.test("attack: more connections than file descriptors (EMFILE on accept) are survived, and the server serves again after they close", async () => {
  // 64 descriptors: the idle program holds about 34, so accept fails after about 30 connections.
  await using program = await startHttpProgram(["serve", EXAMPLES], { fileLimit: 64 });
  const flood: Deno.TcpConn[] = [];
  try {
    for (let index = 0; index < 120; index++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: program.port });
      await conn.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      flood.push(conn);
    }
    // Every flood connection ends up either held or closed by the server; none crashes it.
    const health = await fetch(`${program.base}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    for (const conn of flood) conn.close();
  }
  // After the flood: a whole MCP session starts.
  const response = await fetch(program.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: INITIALIZE,
  });
  const body = await response.text();
  assert.equal(response.status, 200);
  assert.match(body, /"protocolVersion"/);
  assert.match(program.stderr(), /HTTP accept failed \(.*\)/);
  assert.equal(await program.stop(), 0);
});
