/**
 * The node:http bridge after the handler stops reading a body: a chunked
 * body over the cap is refused with 413 and the rest of it, still arriving,
 * must not reach a closed body stream (that threw out of a node event
 * handler and ended the worker). Real loopback sockets, bounded repeats.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../src/config/cli.ts";
import { createSkillServer } from "../../src/mcp/server.ts";
import { type HttpService, serveOverHttp } from "../../src/transports/http/serve.ts";
import { freePort } from "../support/http_program.ts";
import { INITIALIZE, POST_HEADERS } from "../support/mcp_messages.ts";
import { EXAMPLES, exampleStore } from "./_http.ts";

const encoder = new TextEncoder();
/**
 * The body cap in these tests, in bytes: 1 MiB (the default is 256 KiB). Large
 * enough that the connection still holds parsed body bytes when the handler
 * refuses, which is what used to reach the closed body stream.
 */
const MAX_BODY_BYTES = 1024 * 1024;
/** Bytes per chunk the attacker sends: 64 KiB. */
const CHUNK_BYTES = 64 * 1024;
/** Attack rounds per test: bounded. */
const ROUNDS = 15;

async function service(): Promise<{ service: HttpService; logs: string[] } & AsyncDisposable> {
  const port = freePort();
  const config = parseCommandLine({
    args: ["serve", EXAMPLES, `--http=${port}`],
    getEnv: () => undefined,
    cwd: "/",
  });
  const logs: string[] = [];
  const served = serveOverHttp(config, {
    store: await exampleStore(config),
    createServer: (store, info) =>
      createSkillServer({ store, config, isStateless: info.isStateless }),
    limits: { maxBodyBytes: MAX_BODY_BYTES },
    log: (line) => logs.push(line),
  });
  return {
    service: served,
    logs,
    [Symbol.asyncDispose]: async () => {
      await served.shutdown();
      await served.finished;
    },
  };
}

function chunkedHead(port: number): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
}

/** One chunk of `bytes` letters in chunked framing. */
function chunk(bytes: number): Uint8Array {
  return encoder.encode(`${bytes.toString(16)}\r\n${"a".repeat(bytes)}\r\n`);
}

/** Everything the server sends until it closes the connection (EOF or reset). */
async function readUntilClosed(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(16 * 1024);
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (true) {
      const read = await conn.read(buffer);
      if (read === null) return text;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
  } catch {
    return text; // a reset after the answer: the server cut the rest of the body
  }
}

/**
 * Writes `chunks` chunks of `chunkBytes` (stopping quietly when the server
 * closed the connection) while reading the answer.
 */
async function sendChunked(
  port: number,
  chunks: number,
  chunkBytes: number,
  finish: boolean,
): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const answer = readUntilClosed(conn);
    const writing = (async () => {
      try {
        await conn.write(encoder.encode(chunkedHead(port)));
        for (let index = 0; index < chunks; index++) await conn.write(chunk(chunkBytes));
        if (finish) await conn.write(encoder.encode("0\r\n\r\n"));
      } catch { /* the server closed the connection after its answer */ }
    })();
    const text = await answer;
    await writing;
    return text;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

async function assertStillServing(served: HttpService): Promise<void> {
  const health = await fetch(`http://127.0.0.1:${served.port}/healthz`);
  await health.body?.cancel();
  assert.equal(health.status, 200);
  const initialize = await fetch(served.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: INITIALIZE,
  });
  const body = await initialize.text();
  assert.equal(initialize.status, 200);
  assert.match(body, /"protocolVersion"/);
}

Deno.test("attack: a chunked body over the cap, sent 15 times, gets 413 each time and the server keeps serving", async () => {
  await using server = await service();
  const port = server.service.port;
  for (let round = 0; round < ROUNDS; round++) {
    // 20 x 64 KiB = 1.25 times the cap (as 5 MB against 4 MiB), then the final chunk.
    const text = await sendChunked(port, 20, CHUNK_BYTES, true);
    assert.match(text, /^HTTP\/1\.1 413 /, `round ${round}`);
    await assertStillServing(server.service);
  }
});

Deno.test("attack: a chunked body that keeps arriving after the 413 cannot take the server down", async () => {
  await using server = await service();
  const port = server.service.port;
  for (let round = 0; round < ROUNDS; round++) {
    // 48 x 64 KiB = 3 times the cap, never finished: most of it arrives after the refusal.
    const text = await sendChunked(port, 48, CHUNK_BYTES, false);
    assert.match(text, /^HTTP\/1\.1 413 /, `round ${round}`);
    assert.match(text, /connection: close/i, `round ${round}`);
    await assertStillServing(server.service);
  }
});

Deno.test("attack: concurrent oversized chunked bodies all get 413 and the server keeps serving", async () => {
  await using server = await service();
  const port = server.service.port;
  const texts = await Promise.all(
    Array.from({ length: 8 }, () => sendChunked(port, 24, CHUNK_BYTES, false)),
  );
  for (const text of texts) assert.match(text, /^HTTP\/1\.1 413 /);
  await assertStillServing(server.service);
});

Deno.test("attack: clients that disconnect in the middle of a chunked body cannot take the server down", async () => {
  await using server = await service();
  const port = server.service.port;
  for (let round = 0; round < ROUNDS; round++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(encoder.encode(chunkedHead(port)));
      // Half the cap: the handler is still pulling when the connection goes.
      for (let index = 0; index < 8; index++) await conn.write(chunk(CHUNK_BYTES));
    } finally {
      conn.close();
    }
    await assertStillServing(server.service);
  }
});
