/**
 * Issue 11, item 1: memory. Stored SSE events of all sessions share one byte
 * budget, and large answers in flight share another, whatever the number of
 * sessions; the server never grows with them.
 */

import assert from "node:assert/strict";
import {
  ANSWER_OVERHEAD_BYTES,
  AnswerBudgetBusyError,
  answerBytesForText,
  createAnswerBudget,
  jsonEscapedBytes,
} from "../../src/mcp/answer_budget.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import type { HttpHandler } from "../../src/transports/http/handler.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";
import { httpConfig, INITIALIZE, POST_HEADERS, send, testHandler } from "./_http.ts";

/** Polls `condition` every 5 ms for at most 10 s (a ceiling, not a timing assertion). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waitedMs = 0; waitedMs < 10_000; waitedMs += 5) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

async function openSession(http: HttpHandler): Promise<string> {
  const init = await send(http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(init.status, 200);
  return init.headers.get("mcp-session-id") ?? "";
}

function readRequest(sessionId: string, uri: string): Request {
  const request = new Request("http://127.0.0.1:39871/mcp", {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      host: "127.0.0.1:39871",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } }),
  });
  request.headers.set("host", "127.0.0.1:39871");
  return request;
}

/** A store over one skill `big` whose `data.bin` holds `sizeBytes` bytes (0xff: not UTF-8, so a blob). */
async function bigFileStore(sizeBytes: number) {
  const tree = await makeTree({
    "big/SKILL.md": skillMd("big", "Has a big file"),
    "big/data.bin": new Uint8Array(sizeBytes).fill(0xff),
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  return { tree, store: createCatalogStore(catalog) };
}

Deno.test("attack: many sessions reading resources keep stored events within one byte budget", async () => {
  const { tree, store } = await bigFileStore(64 * 1024);
  await using _tree = tree;
  const maxStoredEventBytes = 512 * 1024;
  await using h = await testHandler(httpConfig(), {
    store,
    limits: { maxStoredEventBytes },
  });
  const sessions: string[] = [];
  for (let index = 0; index < 40; index++) {
    const id = await openSession(h.http);
    sessions.push(id);
    const answer = await h.http.handler(readRequest(id, "skill://big/data.bin"));
    const text = await answer.text();
    assert.match(text, /"blob"/, `${answer.status}: ${text.slice(0, 200)}`);
    assert.ok(
      h.http.stats().storedEventBytes <= maxStoredEventBytes,
      `session ${index}: ${h.http.stats().storedEventBytes} bytes kept`,
    );
  }
  // 40 answers of ~87 KiB were sent; no more than the budget is kept.
  assert.ok(h.http.stats().storedEventBytes > maxStoredEventBytes / 2, "the budget is used");
  for (const id of sessions) {
    await send(h.http, {
      method: "DELETE",
      headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    });
  }
  assert.equal(h.http.stats().storedEventBytes, 0, "closed sessions give their bytes back");
});

Deno.test("attack: concurrent reads of a large file hold at most the answer budget; each waits its turn", async () => {
  const fileBytes = 1024 * 1024;
  const { tree, store } = await bigFileStore(fileBytes);
  await using _tree = tree;
  // Room for two answers of ~1.33 MiB at once.
  const maxAnswerBytes = 3 * 1024 * 1024;
  await using h = await testHandler(httpConfig(), { store, limits: { maxAnswerBytes } });
  const sessions = [];
  for (let index = 0; index < 6; index++) sessions.push(await openSession(h.http));
  const responses = await Promise.all(
    sessions.map((id) => h.http.handler(readRequest(id, "skill://big/data.bin"))),
  );
  await eventually(() => h.http.stats().answerBytes > 0, "the first reservations");
  assert.ok(h.http.stats().answerBytes <= maxAnswerBytes, `${h.http.stats().answerBytes}`);
  // Each answer's bytes stay reserved until its body is read; reading them in
  // turn lets the waiting ones through.
  for (const response of responses) {
    const text = await response.text();
    assert.match(text, /"blob":"\/\/\/\//, text.slice(0, 200));
    assert.ok(text.length > (fileBytes * 4) / 3, "the whole file came back");
    assert.ok(h.http.stats().answerBytes <= maxAnswerBytes);
  }
  await eventually(() => h.http.stats().answerBytes === 0, "every reservation released");
});

Deno.test("createAnswerBudget() serves first come first served and refuses after the wait with a retry error", async () => {
  const budget = createAnswerBudget({ maxSmallBytes: 100, timeoutMs: 10_000 });
  const first = await budget.reserve(60);
  const order: string[] = [];
  const second = budget.reserve(60).then((release) => {
    order.push("second");
    return release;
  });
  const third = budget.reserve(10).then((release) => {
    order.push("third");
    return release;
  });
  assert.equal(budget.waiting(), 2, "a small one does not jump the queue");
  first();
  (await second)();
  (await third)();
  assert.deepEqual(order, ["second", "third"]);
  assert.equal(budget.usedBytes(), 0);
  const whole = await budget.reserve(500);
  assert.equal(budget.usedBytes(), 500, "one answer larger than its lane goes alone");
  const cancelled = new AbortController();
  const waiting = budget.reserve(1, { signal: cancelled.signal });
  cancelled.abort(new Error("cancelled by the client"));
  await assert.rejects(waiting, /cancelled by the client/);
  await assert.rejects(budget.reserve(1, { timeoutMs: 1 }), (error) => {
    assert.ok(error instanceof AnswerBudgetBusyError);
    assert.match(error.message, /send the request again in a few seconds/);
    return true;
  });
  whole();
  assert.equal(budget.waiting(), 0);
});

Deno.test("attack: a text of control characters is counted at its escaped size, not its file size", () => {
  const samples = [
    "plain text\n",
    "\u0001\u0002\u001f".repeat(100),
    'quotes " and \\ backslashes\t\r\n\b\f',
    "ünïcödé ✓ 😀",
  ];
  for (const text of samples) {
    const bytes = new TextEncoder().encode(text);
    const escaped = new TextEncoder().encode(JSON.stringify(text)).byteLength - 2;
    assert.equal(answerBytesForText(bytes), escaped + ANSWER_OVERHEAD_BYTES, JSON.stringify(text));
  }
  for (const text of [...samples, "a\ud83d\ude00b", "\u0800\uffff"]) {
    const escaped = new TextEncoder().encode(JSON.stringify(text)).byteLength - 2;
    assert.equal(jsonEscapedBytes(text), escaped, JSON.stringify(text));
  }
  const controls = new Uint8Array(1000).fill(0x01);
  assert.ok(answerBytesForText(controls) >= 6 * 1000, "six bytes per control character");
});

Deno.test("attack: a flood of 16 MiB reads does not make an ordinary read wait", async () => {
  const budget = createAnswerBudget({ maxBytes: 32 * 1024 * 1024, timeoutMs: 10_000 });
  const large = 22 * 1024 * 1024;
  const first = await budget.reserve(large);
  const queued = budget.reserve(large);
  assert.equal(budget.waiting(), 1, "the second large answer waits");
  const ordinary = await budget.reserve(8 * 1024);
  assert.equal(budget.waiting(), 1, "the ordinary one did not queue");
  ordinary();
  first();
  (await queued)();
  assert.equal(budget.usedBytes(), 0);
});

Deno.test("attack: one session's flood of large reads does not make another session wait behind all of it", async () => {
  const budget = createAnswerBudget({ maxBytes: 100, timeoutMs: 10_000 });
  const large = 2 * 1024 * 1024; // over SMALL_ANSWER_BYTES: the large lane
  const first = await budget.reserve(large, { owner: "flood" });
  const order: string[] = [];
  const queued = (owner: string, label: string) =>
    budget.reserve(large, { owner }).then((release) => {
      order.push(label);
      release();
    });
  const flood = [1, 2, 3, 4].map((index) => queued("flood", `flood ${index}`));
  const other = queued("other", "other");
  const third = queued("third", "third");
  assert.equal(budget.waiting(), 6);
  first();
  await Promise.all([...flood, other, third]);
  assert.deepEqual(
    order,
    ["flood 1", "other", "third", "flood 2", "flood 3", "flood 4"],
    "sessions take turns: the others wait behind one of the flood's reads, not four",
  );
  assert.equal(budget.usedBytes(), 0);
  assert.equal(budget.waiting(), 0);
});

Deno.test("createAnswerBudget() lets an owner whose answer does not fit keep its turn", async () => {
  const budget = createAnswerBudget({ maxSmallBytes: 100, timeoutMs: 10_000 });
  const held = await budget.reserve(60, { owner: "a" });
  const order: string[] = [];
  const big = budget.reserve(80, { owner: "b" }).then((release) => {
    order.push("b");
    return release;
  });
  const small = budget.reserve(10, { owner: "c" }).then((release) => {
    order.push("c");
    return release;
  });
  await Promise.resolve();
  assert.deepEqual(order, [], "c fits but does not overtake b, whose turn it is");
  held();
  (await big)();
  (await small)();
  assert.deepEqual(order, ["b", "c"]);
  const cancelled = new AbortController();
  const blocker = await budget.reserve(100, { owner: "a" });
  const leaving = budget.reserve(50, { owner: "b", signal: cancelled.signal });
  const after = budget.reserve(50, { owner: "b" });
  cancelled.abort(new Error("cancelled"));
  await assert.rejects(leaving, /cancelled/);
  assert.equal(budget.waiting(), 1, "a cancelled wait leaves its owner's line");
  blocker();
  (await after)();
  assert.equal(budget.usedBytes(), 0);
});

function toolCallRequest(sessionId: string, args: Record<string, unknown>): Request {
  const request = readRequest(sessionId, "unused");
  return new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "skill_file", arguments: args },
    }),
  });
}

Deno.test("attack: while large answers fill the budget, skill_file waits, then says SERVER_BUSY instead of growing", async () => {
  const { tree, store } = await bigFileStore(1024 * 1024);
  await using _tree = tree;
  await using h = await testHandler(httpConfig(), {
    store,
    // The wait only ends the refused call; nothing here is timed.
    limits: { maxAnswerBytes: 3 * 1024 * 1024, answerWaitMs: 50 },
  });
  const reader = await openSession(h.http);
  const unread = await h.http.handler(readRequest(reader, "skill://big/data.bin"));
  await eventually(() => h.http.stats().answerBytes > 1024 * 1024, "the unread answer's bytes");
  const asker = await openSession(h.http);
  const busy = await h.http.handler(
    toolCallRequest(asker, { name: "big", paths: [{ path: "data.bin", length: 1024 * 1024 }] }),
  );
  const text = await busy.text();
  assert.match(text, /SERVER_BUSY/);
  assert.match(text, /send the request again in a few seconds/);
  assert.ok(h.http.stats().answerBytes <= 3 * 1024 * 1024);
  assert.match(await unread.text(), /"blob"/, "the unread answer is still whole");
  await eventually(() => h.http.stats().answerBytes === 0, "every reservation released");
});
