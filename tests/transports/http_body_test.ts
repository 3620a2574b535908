import assert from "node:assert/strict";
import {
  MAX_CLIENT_NAME_CHARS,
  MAX_CURSOR_CHARS,
  MAX_FILE_ENTRIES_PER_CALL,
  MAX_HTTP_BODY_BYTES,
  MAX_PATH_CHARS,
  MAX_URI_CHARS,
} from "../../src/caps.ts";
import { MAX_ARGS, MAX_ARGS_BYTES } from "../../src/scripts/prepare_run.ts";
import { readJsonBody } from "../../src/transports/http/read_body.ts";
import { httpConfig, INITIALIZE, POST_HEADERS, send, testHandler } from "./_http.ts";

/** A body stream of `total` bytes of spaces, in 64 KiB chunks, with no declared length. */
function chunkedSpaces(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      const size = Math.min(64 * 1024, total - sent);
      if (size <= 0) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(0x20));
      sent += size;
    },
  });
}

Deno.test("HTTP handler answers 413 to a body over the cap, declared or streamed", async (t) => {
  for (const flags of [[], ["--stateless"]]) {
    await t.step(flags.join(" ") || "stateful", async () => {
      await using h = await testHandler(httpConfig(flags));
      const declared = await send(h.http, {
        method: "POST",
        headers: POST_HEADERS,
        body: " ".repeat(MAX_HTTP_BODY_BYTES) + INITIALIZE,
      });
      assert.equal(declared.status, 413);
      assert.match(declared.text, /Payload too large/);
      const streamed = await send(h.http, {
        method: "POST",
        headers: POST_HEADERS,
        body: chunkedSpaces(MAX_HTTP_BODY_BYTES + 1),
      });
      assert.equal(streamed.status, 413);
      assert.equal(h.http.stats().sessions, 0);
      assert.equal(h.http.stats().inFlight, 0);
    });
  }
});

Deno.test("HTTP handler answers JSON-RPC -32700 to broken JSON, with or without a session", async (t) => {
  for (const flags of [[], ["--stateless"]]) {
    await t.step(flags.join(" ") || "stateful", async () => {
      await using h = await testHandler(httpConfig(flags));
      for (const body of ['{"jsonrpc":"2.0","id":1,"method":', "\u00ff\u00fe", ""]) {
        const response = await send(h.http, { method: "POST", headers: POST_HEADERS, body });
        assert.equal(response.status, 400, JSON.stringify(body));
        const answer = response.json() as { error: { code: number }; id: unknown };
        assert.equal(answer.error.code, -32700);
        assert.equal(answer.id, null);
      }
      const invalidUtf8 = await send(h.http, {
        method: "POST",
        headers: POST_HEADERS,
        body: new Uint8Array([0x7b, 0xff, 0x7d]),
      });
      assert.equal((invalidUtf8.json() as { error: { code: number } }).error.code, -32700);
    });
  }
  await using h = await testHandler(httpConfig());
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id");
  assert.ok(sessionId);
  const broken = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId },
    body: "[{]",
  });
  assert.equal(broken.status, 400);
  assert.equal((broken.json() as { error: { code: number } }).error.code, -32700);
  // A JSON value that is not a JSON-RPC message: the SDK's transport answers it.
  const notRpc = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    body: '{"hello":"world"}',
  });
  assert.equal(notRpc.status, 400);
  assert.equal((notRpc.json() as { error: { code: number } }).error.code, -32700);
});

Deno.test("readJsonBody() reads a body of exactly the cap and refuses one byte more", async () => {
  const exact = await readJsonBody(
    new Request("http://x/", { method: "POST", body: chunkedSpaces(1024) }),
    1024,
  );
  assert.equal(exact.kind, "malformed", "1024 spaces are not JSON, but they were read");
  const over = await readJsonBody(
    new Request("http://x/", { method: "POST", body: chunkedSpaces(1025) }),
    1024,
  );
  assert.deepEqual(over, { kind: "too-large", maxBytes: 1024 });
  // An empty body that declares 1025 bytes: refused on the header alone.
  const declared = new Request("http://x/", {
    method: "POST",
    headers: { "content-length": "1025" },
    body: new ReadableStream({ start: (controller) => controller.close() }),
  });
  assert.deepEqual(await readJsonBody(declared, 1024), { kind: "too-large", maxBytes: 1024 });
  const value = await readJsonBody(
    new Request("http://x/", { method: "POST", body: '{"a":[1,2]}' }),
    1024,
  );
  assert.deepEqual(value, { kind: "json", value: { a: [1, 2] } });
});

/** A body that sends `first` and then never another byte, and records whether it was cancelled. */
function stalledBody(
  first: string,
): { body: ReadableStream<Uint8Array>; isCancelled: () => boolean } {
  let isCancelled = false;
  let hasSent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (hasSent) return new Promise<void>(() => {}); // never another byte
      hasSent = true;
      controller.enqueue(new TextEncoder().encode(first));
    },
    cancel() {
      isCancelled = true;
    },
  });
  return { body, isCancelled: () => isCancelled };
}

Deno.test("readJsonBody() gives up on a body that never ends and cancels it", async () => {
  const stalled = stalledBody("{");
  const result = await readJsonBody(
    new Request("http://x/", { method: "POST", body: stalled.body }),
    1024,
    { timeoutMs: 5 },
  );
  assert.deepEqual(result, { kind: "timed-out", timeoutMs: 5 });
  assert.equal(stalled.isCancelled(), true, "the stalled body is cancelled");
});

Deno.test("slow bodies (headers and one byte) get 408 and release their in-flight slots", async (t) => {
  for (const flags of [[], ["--stateless"]]) {
    await t.step(flags.join(" ") || "stateful", async () => {
      await using h = await testHandler(httpConfig(flags), {
        limits: { bodyTimeoutMs: 5, maxInFlight: 4 },
      });
      // Twice the slots: without the deadline the first four would hold them forever.
      const slow = await Promise.all(Array.from({ length: 8 }, () =>
        send(h.http, {
          method: "POST",
          headers: POST_HEADERS,
          body: stalledBody(INITIALIZE.slice(0, 1)).body,
        })));
      for (const response of slow) {
        assert.ok([408, 503].includes(response.status), response.text);
      }
      const timedOut = slow.filter((response) => response.status === 408);
      assert.ok(timedOut.length >= 4, "every slot-holder timed out");
      const answer = timedOut[0]?.json() as { error: { code: number; message: string }; id: null };
      assert.equal(answer.error.code, -32000);
      assert.match(answer.error.message, /did not arrive within 5 ms/);
      assert.equal(answer.id, null);
      assert.equal(h.http.stats().inFlight, 0, "every slot was released");
      const fresh = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
      assert.equal(fresh.status, 200, fresh.text);
    });
  }
});

Deno.test("a slow body inside a session gets 408 and frees the session's slot", async () => {
  await using h = await testHandler(httpConfig(), {
    limits: { bodyTimeoutMs: 5, maxInFlightPerSession: 1 },
  });
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id");
  assert.ok(sessionId);
  const headers = {
    ...POST_HEADERS,
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  };
  const slow = await send(h.http, { method: "POST", headers, body: stalledBody("{").body });
  assert.equal(slow.status, 408);
  const ping = await send(h.http, {
    method: "POST",
    headers,
    body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  });
  assert.equal(ping.status, 200, `the session's one slot is free again: ${ping.text}`);
  assert.equal(h.http.stats().inFlight, 0);
});

/** A POST whose body arrives as exactly these chunks. */
function chunkedRequest(chunks: readonly number[][]): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
        controller.close();
      },
    }),
  });
}

Deno.test("readJsonBody() decodes a character split across chunks, and refuses bytes that are not strict UTF-8", async () => {
  const bytes = [...new TextEncoder().encode('{"name":"\u{1F600}é"}')];
  // Split inside the 4-byte emoji and inside the 2-byte é.
  const split = await readJsonBody(
    chunkedRequest([bytes.slice(0, 11), bytes.slice(11, 15), bytes.slice(15)]),
    1024,
  );
  assert.deepEqual(split, { kind: "json", value: { name: "\u{1F600}é" } });
  const invalid = await readJsonBody(chunkedRequest([[0x7b], [0xff], [0x7d]]), 1024);
  assert.equal(invalid.kind, "malformed");
  const cutShort = await readJsonBody(chunkedRequest([bytes.slice(0, 11)]), 1024);
  assert.deepEqual(cutShort, {
    kind: "malformed",
    reason: "Parse error: the body is not valid UTF-8",
  });
  // A bad byte early does not hide that the body is also too large.
  const both = await readJsonBody(chunkedRequest([[0xff], Array(2048).fill(0x61)]), 1024);
  assert.equal(both.kind, "too-large");
});

/**
 * A JSON-RPC request whose `params` hold one string of `stringBytes` ASCII
 * letters, as a counted stream of 64 KiB chunks: `pulled()` says how many
 * bytes the server took from it.
 */
function countedHugeRequest(sessionId: string | null, stringBytes: number) {
  const text = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "prompts/get",
    params: { name: "a".repeat(stringBytes) },
  });
  const bytes = new TextEncoder().encode(text);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = bytes.subarray(pulled, pulled + 64 * 1024);
      if (chunk.byteLength === 0) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 }); // pulled only when read
  const headers: Record<string, string> = { ...POST_HEADERS };
  if (sessionId !== null) headers["mcp-session-id"] = sessionId;
  return { body, headers, totalBytes: bytes.byteLength, pulled: () => pulled };
}

Deno.test("attack: a 4 MiB string body is refused with 413 before it is parsed", async () => {
  await using h = await testHandler(httpConfig());
  const init = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  const sessionId = init.headers.get("mcp-session-id");
  assert.ok(sessionId);
  // Declared: refused on Content-Length alone, not one byte taken from the body.
  const declared = countedHugeRequest(sessionId, 4 * 1024 * 1024 - 1024);
  const refused = await send(h.http, {
    method: "POST",
    headers: { ...declared.headers, "content-length": String(declared.totalBytes) },
    body: declared.body,
  });
  assert.equal(refused.status, 413);
  assert.match(refused.text, new RegExp(`at most ${MAX_HTTP_BODY_BYTES} bytes`));
  assert.equal(declared.pulled(), 0, "the declared body was never read");
  // Chunked (no length declared): the read stops one chunk past the cap.
  const chunked = countedHugeRequest(sessionId, 4 * 1024 * 1024 - 1024);
  const cut = await send(h.http, { method: "POST", headers: chunked.headers, body: chunked.body });
  assert.equal(cut.status, 413);
  assert.ok(
    chunked.pulled() <= MAX_HTTP_BODY_BYTES + 2 * 64 * 1024,
    `read ${chunked.pulled()} of ${chunked.totalBytes} bytes before refusing`,
  );
  assert.equal(h.http.stats().inFlight, 0, "the refused bodies never became requests");
  // The session is unharmed: an ordinary request still answers.
  const list = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "prompts/list" }),
  });
  assert.equal(list.status, 200);
  assert.match(list.text, /"prompts"/);
});

Deno.test("MAX_HTTP_BODY_BYTES holds four of the largest legitimate requests, fully escaped", () => {
  // Every character a control character (JSON-escaped as \u0001, 6 bytes):
  // the worst case of each client string at its cap.
  const worst = (chars: number) => "\u0001".repeat(chars);
  const argChars = Math.floor(MAX_ARGS_BYTES / MAX_ARGS);
  const largest = [
    {
      method: "tools/call",
      params: {
        name: "skill_run",
        arguments: {
          name: worst(MAX_CLIENT_NAME_CHARS),
          script: worst(MAX_PATH_CHARS),
          args: Array.from({ length: MAX_ARGS }, () => worst(argChars)),
          confirmToken: worst(512),
        },
      },
    },
    {
      method: "tools/call",
      params: {
        name: "skill_file",
        arguments: {
          name: worst(MAX_CLIENT_NAME_CHARS),
          paths: Array.from({ length: MAX_FILE_ENTRIES_PER_CALL }, () => worst(MAX_PATH_CHARS)),
        },
      },
    },
    { method: "resources/list", params: { cursor: worst(MAX_CURSOR_CHARS) } },
    { method: "resources/read", params: { uri: worst(MAX_URI_CHARS) } },
  ];
  for (const message of largest) {
    const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }))
      .byteLength;
    assert.ok(
      4 * bytes <= MAX_HTTP_BODY_BYTES,
      `${message.method} ${JSON.stringify(message.params).slice(0, 40)}: ${bytes} bytes`,
    );
  }
});
