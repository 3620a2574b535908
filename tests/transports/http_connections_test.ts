/**
 * The HTTP listener against hostile connections, over real loopback sockets
 * (`Deno.connect`): connections that never finish their headers, idle
 * keep-alive connections, closing answers, floods beyond the connection cap,
 * unfinished chunked bodies, and shutdown in the middle of a body. The
 * limits are configured low so each attack plays out in a fraction of a
 * second; the assertions are about what happens, never how fast.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../src/config/cli.ts";
import type { Config } from "../../src/config/config.ts";
import { createSkillServer } from "../../src/mcp/server.ts";
import {
  type ConnectionSettings,
  type HttpService,
  serveOverHttp,
} from "../../src/transports/http/serve.ts";
import type { HttpLimits } from "../../src/transports/http/handler.ts";
import { freePort } from "../support/http_program.ts";
import { INITIALIZE, POST_HEADERS } from "../support/mcp_messages.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../support/sdk_v2_client.ts";
import { EXAMPLES, exampleStore } from "./_http.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { type CatalogStore, createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const encoder = new TextEncoder();

/** A listener on a free loopback port with low limits, shut down when disposed. */
async function lowLimitService(
  connections: Partial<ConnectionSettings>,
  limits: Partial<HttpLimits> = {},
  store?: CatalogStore,
): Promise<{ service: HttpService; config: Config; logs: string[] } & AsyncDisposable> {
  const port = freePort();
  const config = parseCommandLine({
    args: ["serve", EXAMPLES, `--http=${port}`],
    getEnv: () => undefined,
    cwd: "/",
  });
  const logs: string[] = [];
  const service = serveOverHttp(config, {
    store: store ?? await exampleStore(config),
    createServer: (store, info) =>
      createSkillServer({ store, config, isStateless: info.isStateless }),
    connections: { checkIntervalMs: 50, ...connections },
    limits,
    log: (line) => logs.push(line),
  });
  return {
    service,
    config,
    logs,
    [Symbol.asyncDispose]: async () => {
      await service.shutdown();
      await service.finished;
    },
  };
}

/** Polls `condition` every 10 ms for at most 30 s (a ceiling, not a timing assertion). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waitedMs = 0; waitedMs < 30_000; waitedMs += 10) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

async function connect(service: HttpService): Promise<Deno.TcpConn> {
  return await Deno.connect({ hostname: "127.0.0.1", port: service.port });
}

/** Everything the server sends until it closes the connection (EOF), or the read fails. */
async function readUntilClosed(conn: Deno.Conn): Promise<{ text: string; sawEof: boolean }> {
  const buffer = new Uint8Array(16 * 1024);
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (true) {
      const read = await conn.read(buffer);
      if (read === null) return { text, sawEof: true };
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
  } catch {
    return { text, sawEof: false }; // reset instead of a clean close
  }
}

/** Reads one whole response with a Content-Length body (keeps the connection). */
async function readOneResponse(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(16 * 1024);
  const decoder = new TextDecoder();
  let text = "";
  while (true) {
    const headEnd = text.indexOf("\r\n\r\n");
    if (headEnd >= 0) {
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? "0");
      if (text.length >= headEnd + 4 + length) return text;
    }
    const read = await conn.read(buffer);
    if (read === null) throw new Error(`closed before a whole response: ${text}`);
    text += decoder.decode(buffer.subarray(0, read), { stream: true });
  }
}

async function healthOf(service: HttpService): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${service.port}/healthz`);
  await response.body?.cancel();
  return response.status;
}

Deno.test("attack: a connection that never finishes its headers gets 408 and is closed", async () => {
  await using server = await lowLimitService({ headersTimeoutMs: 200 });
  const conn = await connect(server.service);
  try {
    await conn.write(encoder.encode("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
    const { text, sawEof } = await readUntilClosed(conn);
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.ok(sawEof, "the server closed the connection");
    assert.equal(server.service.connectionStats().open, 0);
  } finally {
    conn.close();
  }
});

Deno.test("attack: a connection that sends nothing at all is closed by the header timeout", async () => {
  await using server = await lowLimitService({ headersTimeoutMs: 200 });
  const conn = await connect(server.service);
  try {
    const { sawEof } = await readUntilClosed(conn);
    assert.ok(sawEof);
  } finally {
    conn.close();
  }
});

Deno.test("attack: an idle keep-alive connection is closed after the idle timeout", async () => {
  await using server = await lowLimitService({ keepAliveIdleMs: 100 });
  const conn = await connect(server.service);
  try {
    await conn.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const first = await readOneResponse(conn);
    assert.match(first, /^HTTP\/1\.1 200 /);
    assert.match(first, /connection: keep-alive/i);
    // Nothing more is sent: the server must let go of the connection by itself.
    const { text, sawEof } = await readUntilClosed(conn);
    assert.equal(text, "");
    assert.ok(sawEof);
  } finally {
    conn.close();
  }
});

Deno.test("attack: a body that stops arriving gets 408 with connection: close, and the connection really closes", async () => {
  await using server = await lowLimitService({}, { bodyTimeoutMs: 200 });
  const conn = await connect(server.service);
  try {
    const port = server.service.port;
    await conn.write(encoder.encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        'Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
    ));
    const { text, sawEof } = await readUntilClosed(conn);
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /connection: close/i);
    assert.ok(sawEof, "read returns EOF after the closing answer");
  } finally {
    conn.close();
  }
  assert.equal(await healthOf(server.service), 200);
});

Deno.test("attack: unfinished chunked bodies are cut by the deadline and a normal client is still answered", async () => {
  await using server = await lowLimitService({}, { bodyTimeoutMs: 300 });
  const port = server.service.port;
  const conns = await Promise.all(Array.from({ length: 16 }, () => connect(server.service)));
  try {
    await Promise.all(conns.map((conn) =>
      conn.write(encoder.encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
          '5\r\n{"jso\r\n',
      ))
    ));
    const initialize = await fetch(server.service.url, {
      method: "POST",
      headers: POST_HEADERS,
      body: INITIALIZE,
    });
    const body = await initialize.text();
    assert.equal(initialize.status, 200);
    assert.match(body, /"protocolVersion"/);
    const answers = await Promise.all(conns.map(readUntilClosed));
    for (const { text, sawEof } of answers) {
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.ok(sawEof);
    }
  } finally {
    for (const conn of conns) conn.close();
  }
});

Deno.test("attack: 300 connections that never finish headers stay within a cap of 40, and a normal client is answered", async () => {
  await using server = await lowLimitService({ maxConnections: 40, headersTimeoutMs: 60_000 });
  const conns: Deno.TcpConn[] = [];
  try {
    for (let index = 0; index < 300; index++) {
      const conn = await connect(server.service);
      await conn.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      conns.push(conn);
    }
    // A normal client still gets in: the longest-idle half-open connection makes room.
    assert.equal(await healthOf(server.service), 200);
    const stats = server.service.connectionStats();
    assert.ok(stats.open <= 40, `open connections ${stats.open} within the cap`);
    assert.ok(stats.evicted >= 260, `evicted ${stats.evicted}`);
    // The oldest ones were really closed: reading them returns EOF.
    const oldest = await Promise.all(conns.slice(0, 20).map(readUntilClosed));
    assert.ok(oldest.every((answer) => answer.sawEof && answer.text === ""));
  } finally {
    for (const conn of conns) conn.close();
  }
});

Deno.test("a client's Connection: close is honoured when the answer is an SSE stream", async () => {
  await using server = await lowLimitService({ keepAliveIdleMs: 60_000 });
  const conn = await connect(server.service);
  try {
    await conn.write(encoder.encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.service.port}\r\n` +
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        `Connection: close\r\nContent-Length: ${encoder.encode(INITIALIZE).length}\r\n\r\n` +
        INITIALIZE,
    ));
    // Only the server's close ends this read (the idle timeout is a minute away).
    const { text, sawEof } = await readUntilClosed(conn);
    assert.match(text, /content-type: text\/event-stream/i);
    assert.doesNotMatch(text, /connection: keep-alive/i);
    assert.ok(sawEof);
  } finally {
    conn.close();
  }
});

/** Opens a session with a raw `initialize` on its own connection; returns its id. */
async function rawSession(service: HttpService): Promise<string> {
  const opener = await connect(service);
  try {
    await opener.write(encoder.encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\n` +
        "Accept: application/json, text/event-stream\r\nConnection: close\r\n" +
        `Content-Length: ${encoder.encode(INITIALIZE).length}\r\n\r\n${INITIALIZE}`,
    ));
    const { text } = await readUntilClosed(opener);
    const sessionId = /mcp-session-id: (\S+)/i.exec(text)?.[1];
    assert.ok(sessionId, text);
    return sessionId;
  } finally {
    opener.close();
  }
}

/**
 * Opens `count` sessions, each with its standby GET stream held open on a raw
 * connection that never reads, as n9's attacker did (one stream per session,
 * which the spec allows); resolves once the server counts them all.
 */
async function idleGetStreams(
  service: HttpService,
  count: number,
  sessionIds: string[] = [],
): Promise<Deno.TcpConn[]> {
  const streams: Deno.TcpConn[] = [];
  const before = service.handler.stats().openStreams;
  for (let index = 0; index < count; index++) {
    const sessionId = await rawSession(service);
    sessionIds.push(sessionId);
    const stream = await connect(service);
    streams.push(stream);
    await stream.write(encoder.encode(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nAccept: text/event-stream\r\n` +
        `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n`,
    ));
    while (service.handler.stats().openStreams < before + index + 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return streams;
}

Deno.test("attack: idle GET streams on every connection at the cap cannot keep a newcomer out; the least recently active gives way", async () => {
  await using server = await lowLimitService({ maxConnections: 4 });
  const streams = await idleGetStreams(server.service, 4);
  try {
    assert.equal(server.service.connectionStats().open, 4);
    const newcomer = await connect(server.service);
    try {
      await newcomer.write(
        encoder.encode("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      );
      assert.match((await readUntilClosed(newcomer)).text, /^HTTP\/1\.1 200 /);
    } finally {
      newcomer.close();
    }
    // The first stream's session was the least recently active: its stream was closed for
    // the newcomer (after the answer head it had already sent), the others stay open.
    const first = await readUntilClosed(streams[0] as Deno.TcpConn);
    assert.match(first.text, /^HTTP\/1\.1 200 /);
    const stats = server.service.connectionStats();
    assert.equal(stats.refused, 0);
    assert.equal(stats.standbyEvicted, 1);
    await eventually(() => server.service.handler.stats().openStreams === 3, "the stream to end");
    // Its session lives on: the client may open the stream again.
    assert.equal(server.service.handler.stats().sessions, 4);
  } finally {
    for (const conn of streams) conn.close();
  }
});

/** Asks for `sessionId`'s GET stream on a new connection; returns the answer's head, then closes. */
async function getStreamHead(service: HttpService, sessionId: string): Promise<string> {
  const conn = await connect(service);
  try {
    await conn.write(encoder.encode(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nAccept: text/event-stream\r\n` +
        `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n`,
    ));
    const buffer = new Uint8Array(16 * 1024);
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("\r\n\r\n")) {
      const read = await conn.read(buffer);
      if (read === null) break;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    return text;
  } finally {
    conn.close();
  }
}

Deno.test("attack: at the cap the stream of the session least recently active gives way, not the one opened first", async () => {
  await using server = await lowLimitService({ maxConnections: 5 });
  const port = server.service.port;
  const sessionIds: string[] = [];
  const streams = await idleGetStreams(server.service, 4, sessionIds);
  try {
    // The first session asks something (on the fifth connection, closed after the answer).
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" });
    const asker = await connect(server.service);
    try {
      await asker.write(encoder.encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          "Accept: application/json, text/event-stream\r\nConnection: close\r\n" +
          `Mcp-Session-Id: ${sessionIds[0]}\r\nMcp-Protocol-Version: 2025-11-25\r\n` +
          `Content-Length: ${encoder.encode(ping).length}\r\n\r\n${ping}`,
      ));
      assert.match((await readUntilClosed(asker)).text, /"result":\{\}/);
    } finally {
      asker.close();
    }
    await eventually(() => server.service.connectionStats().open === 4, "the asker to close");
    // A fifth stream fills the cap; then a newcomer arrives.
    streams.push(...await idleGetStreams(server.service, 1));
    const newcomer = await connect(server.service);
    try {
      await newcomer.write(
        encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      );
      assert.match((await readUntilClosed(newcomer)).text, /^HTTP\/1\.1 200 /);
    } finally {
      newcomer.close();
    }
    assert.equal(server.service.connectionStats().standbyEvicted, 1);
    await eventually(() => server.service.handler.stats().openStreams === 4, "the stream to end");
    // The second session's stream was the least recently active: it alone was closed, so that
    // session may open its stream again, while the first still holds its own (409).
    assert.match(await getStreamHead(server.service, sessionIds[0] as string), /^HTTP\/1\.1 409 /);
    assert.match(await getStreamHead(server.service, sessionIds[1] as string), /^HTTP\/1\.1 200 /);
  } finally {
    for (const conn of streams) conn.close();
  }
});

for (const line of ["1.x", "2.x"] as const) {
  Deno.test(`attack: idle GET streams holding every connection cannot lock out a fresh ${line} SDK client or /readyz`, async () => {
    await using server = await lowLimitService({ maxConnections: 12 });
    const streams = await idleGetStreams(server.service, 12);
    try {
      assert.equal(server.service.connectionStats().open, 12);
      const url = new URL(`http://127.0.0.1:${server.service.port}/mcp`);
      if (line === "1.x") {
        const client = new Client({ name: "newcomer", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(url));
        try {
          const result = await client.callTool({ name: "skill_list", arguments: {} });
          assert.notEqual(result.isError, true, JSON.stringify(result));
        } finally {
          await client.close();
        }
      } else {
        const client = new ClientV2({ name: "newcomer", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransportV2(url));
        try {
          const result = await client.callTool({ name: "skill_list", arguments: {} });
          assert.notEqual(result.isError, true, JSON.stringify(result));
        } finally {
          await client.close();
        }
      }
      const ready = await fetch(`http://127.0.0.1:${server.service.port}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
      const stats = server.service.connectionStats();
      assert.equal(stats.refused, 0, "no connection was closed at accept");
      assert.ok(stats.standbyEvicted >= 1, `standby streams closed: ${stats.standbyEvicted}`);
      assert.ok(stats.open <= 12);
    } finally {
      for (const conn of streams) conn.close();
    }
  });
}

Deno.test("attack: idle 2026-07-28 subscriptions/listen streams at the cap give way to a newcomer too", async () => {
  await using server = await lowLimitService({ maxConnections: 3 });
  const port = server.service.port;
  const listen = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const streams: Deno.TcpConn[] = [];
  try {
    for (let index = 0; index < 3; index++) {
      const conn = await connect(server.service);
      streams.push(conn);
      await conn.write(encoder.encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          "Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n" +
          `Mcp-Method: subscriptions/listen\r\nContent-Length: ${encoder.encode(listen).length}` +
          `\r\n\r\n${listen}`,
      ));
      await eventually(
        () => server.service.handler.stats().openStreams === index + 1,
        `listen stream ${index + 1}`,
      );
    }
    const newcomer = await connect(server.service);
    try {
      await newcomer.write(
        encoder.encode("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      );
      assert.match((await readUntilClosed(newcomer)).text, /^HTTP\/1\.1 200 /);
    } finally {
      newcomer.close();
    }
    // The oldest listen stream was closed for it (after its acknowledgement).
    const first = await readUntilClosed(streams[0] as Deno.TcpConn);
    assert.match(first.text, /notifications\/subscriptions\/acknowledged/);
    const stats = server.service.connectionStats();
    assert.equal(stats.refused, 0);
    assert.equal(stats.standbyEvicted, 1);
    await eventually(() => server.service.handler.stats().openStreams === 2, "the stream to end");
  } finally {
    for (const conn of streams) conn.close();
  }
});

Deno.test("attack: unfinished bodies on every connection at the cap cannot keep a new client out; the oldest gives way", async () => {
  await using server = await lowLimitService({ maxConnections: 4 }, { bodyTimeoutMs: 60_000 });
  const port = server.service.port;
  const busy: Deno.TcpConn[] = [];
  try {
    for (let index = 0; index < 4; index++) {
      const conn = await connect(server.service);
      busy.push(conn);
      await conn.write(encoder.encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          "Accept: application/json, text/event-stream\r\nContent-Length: 50\r\n\r\n{",
      ));
      // One at a time, so which body has been arriving longest is known.
      while (startedRequests(server.service.handler) < index + 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    const newcomer = await connect(server.service);
    try {
      await newcomer.write(
        encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      );
      assert.match((await readUntilClosed(newcomer)).text, /^HTTP\/1\.1 200 /);
    } finally {
      newcomer.close();
    }
    const oldest = await readUntilClosed(busy[0] as Deno.TcpConn);
    assert.equal(oldest.text, "", "the oldest unfinished body's connection was closed");
    assert.equal(server.service.connectionStats().refused, 0);
  } finally {
    for (const conn of busy) conn.close();
  }
});

Deno.test("shutdown: a body still arriving is cut at once, idle connections closed, and finished resolves", async () => {
  const server = await lowLimitService({}, { bodyTimeoutMs: 60_000, drainTimeoutMs: 60_000 });
  const port = server.service.port;
  const midBody = await connect(server.service);
  const idle = await connect(server.service);
  try {
    await midBody.write(encoder.encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
        '5\r\n{"jso\r\n',
    ));
    while (startedRequests(server.service.handler) < 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await server.service.shutdown();
    await server.service.finished;
    assert.equal(startedRequests(server.service.handler), 0);
    assert.equal(server.service.connectionStats().open, 0);
    assert.equal((await readUntilClosed(midBody)).text, "", "cut without an answer");
    assert.equal((await readUntilClosed(idle)).text, "");
    await assert.rejects(() => connect(server.service));
  } finally {
    midBody.close();
    idle.close();
  }
});

Deno.test("attack: a flood of half-sent headers at the cap does not push out a kept-alive client", async () => {
  await using server = await lowLimitService({ maxConnections: 10, headersTimeoutMs: 60_000 });
  const client = await connect(server.service);
  const flood: Deno.TcpConn[] = [];
  try {
    const ask = encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await client.write(ask);
    assert.match(await readOneResponse(client), /^HTTP\/1\.1 200 /);
    for (let index = 0; index < 50; index++) {
      const conn = await connect(server.service);
      await conn.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      flood.push(conn);
    }
    // Make sure the server has accepted the whole flood before the client asks again.
    while (server.service.connectionStats().accepted < 51) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await client.write(ask);
    assert.match(await readOneResponse(client), /^HTTP\/1\.1 200 /);
    assert.ok(server.service.connectionStats().open <= 10);
  } finally {
    client.close();
    for (const conn of flood) conn.close();
  }
});

/** Requests whose headers were parsed: reading their body (own pool) or in flight. */
function startedRequests(handler: { stats(): { inFlight: number; bodyReads: number } }): number {
  const stats = handler.stats();
  return stats.inFlight + stats.bodyReads;
}

Deno.test("attack: half-header connections, 300 at a time (up to 3,000), cannot keep a new client out", async () => {
  await using server = await lowLimitService({ maxConnections: 64, headersTimeoutMs: 60_000 });
  const flood = new Worker(new URL("./_half_header_flood.ts", import.meta.url), { type: "module" });
  const started = Promise.withResolvers<void>();
  flood.onmessage = (event) => {
    if (event.data.kind === "started") started.resolve();
  };
  flood.postMessage({ port: server.service.port, total: 3_000, concurrency: 300 });
  const whole = encoder.encode(
    "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
  );
  const answers: string[] = [];
  try {
    await started.promise;
    // 100 new clients, one after another, while the flood keeps the cap full.
    for (let index = 0; index < 100; index++) {
      const newcomer = await connect(server.service);
      try {
        await newcomer.write(whole);
        answers.push((await readUntilClosed(newcomer)).text.split("\r\n")[0] ?? "");
      } finally {
        newcomer.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.ok(server.service.connectionStats().evicted >= 300, "the flood filled the cap");
  } finally {
    flood.terminate();
  }
  assert.deepEqual(
    answers.filter((line) => line !== "HTTP/1.1 200 OK"),
    [],
    `every one of ${answers.length} new clients was answered`,
  );
  assert.ok(server.service.connectionStats().open <= 64);
});

/**
 * A store over one skill `big` whose `data.bin` holds 8 MiB of 0xff (a base64
 * blob of about 10.7 MiB: a large answer, and more than loopback's socket
 * buffers take unread, so a client that never reads stalls it).
 */
async function bigAnswerStore() {
  const tree = await makeTree({
    "big/SKILL.md": skillMd("big", "Has a big file"),
    "big/data.bin": new Uint8Array(8 * 1024 * 1024).fill(0xff),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  return { tree, store: createCatalogStore(catalog) };
}

/**
 * Sends `resources/read skill://big/data.bin` on a raw connection that never
 * reads a byte of the answer (n9's attacker: `socket.pause()`).
 */
async function unreadBigRead(service: HttpService, sessionId: string): Promise<Deno.TcpConn> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "resources/read",
    params: { uri: "skill://big/data.bin" },
  });
  const conn = await connect(service);
  await conn.write(encoder.encode(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\n` +
      "Accept: application/json, text/event-stream\r\n" +
      `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-11-25\r\n` +
      `Content-Length: ${encoder.encode(body).length}\r\n\r\n${body}`,
  ));
  return conn;
}

Deno.test("attack: a client that never reads its large answer cannot hold the answer budget; after the write stall bound another client's large read succeeds", async () => {
  const { tree, store } = await bigAnswerStore();
  await using _tree = tree;
  // Room for one large answer at a time, and a victim that would wait a minute for it: only
  // the stall bound (3 s here, 30 s by default) can free the room in time.
  await using server = await lowLimitService(
    { writeStallMs: 3_000 },
    { maxAnswerBytes: 12 * 1024 * 1024, answerWaitMs: 60_000 },
    store,
  );
  const attacker = await unreadBigRead(server.service, await rawSession(server.service));
  try {
    await eventually(
      () => server.service.handler.stats().answerBytes > 8 * 1024 * 1024,
      "the unread answer to hold its reservation",
    );
    const client = new Client({ name: "victim", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.service.port}/mcp`)),
    );
    try {
      const result = await client.readResource({ uri: "skill://big/data.bin" }, {
        timeout: 120_000,
      });
      const content = result.contents[0] as { blob?: string };
      assert.equal(content.blob?.length, Math.ceil((8 * 1024 * 1024) / 3) * 4);
    } finally {
      await client.close();
    }
    const stats = server.service.connectionStats();
    assert.equal(stats.writeStalls, 1, "the attacker's connection was closed for its stall");
    assert.ok(
      server.logs.some((line) => line.includes("write stall timeout")),
      server.logs.join("\n"),
    );
    await eventually(
      () => server.service.handler.stats().answerBytes === 0,
      "every reservation released",
    );
  } finally {
    attacker.close();
  }
});

Deno.test("attack: when every connection at the cap is writing an answer (work in progress, not a standby stream), a new one is closed at accept", async () => {
  const { tree, store } = await bigAnswerStore();
  await using _tree = tree;
  await using server = await lowLimitService(
    { maxConnections: 2, writeStallMs: 60_000 },
    {},
    store,
  );
  const sessionId = await rawSession(server.service);
  await eventually(() => server.service.connectionStats().open === 0, "the opener to close");
  const writers: Deno.TcpConn[] = [];
  try {
    for (let index = 0; index < 2; index++) {
      writers.push(await unreadBigRead(server.service, sessionId));
      await eventually(
        () => server.service.handler.stats().answerBytes > (index + 1) * 8 * 1024 * 1024,
        `answer ${index + 1} to be under way`,
      );
    }
    const late = await connect(server.service);
    try {
      const { text } = await readUntilClosed(late);
      assert.equal(text, "", "refused without a byte");
    } finally {
      late.close();
    }
    const stats = server.service.connectionStats();
    assert.ok(stats.refused >= 1);
    assert.equal(stats.writeStalls, 0, "nothing was cut for a stall");
    assert.ok(server.logs.some((line) => line.includes("HTTP connection limit reached")));
  } finally {
    for (const conn of writers) conn.close();
  }
});
