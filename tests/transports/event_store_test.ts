/** createSessionEventStore(): resumable SSE for one session, bounded. */

import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../../src/mcp/sdk.ts";
import { STORED_EVENT_OVERHEAD_BYTES } from "../../src/caps.ts";
import {
  createEventBudget,
  createSessionEventStore,
  JSONRPC_ANSWER_NOT_KEPT,
} from "../../src/transports/http/event_store.ts";

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { n },
});

async function replay(
  store: ReturnType<typeof createSessionEventStore>,
  after: string,
): Promise<{ streamId: string; sent: [string, JSONRPCMessage][] }> {
  const sent: [string, JSONRPCMessage][] = [];
  const streamId = await store.replayEventsAfter(after, {
    send: (id, message) => {
      sent.push([id, message]);
      return Promise.resolve();
    },
  });
  return { streamId, sent };
}

Deno.test("createSessionEventStore() replays only later events of the same stream", async () => {
  const store = createSessionEventStore();
  const a1 = await store.storeEvent("a", note(1));
  await store.storeEvent("b", note(2));
  const a3 = await store.storeEvent("a", note(3));
  const a4 = await store.storeEvent("a", note(4));
  assert.equal(await store.getStreamIdForEventId(a1), "a");
  const { streamId, sent } = await replay(store, a1);
  assert.equal(streamId, "a");
  assert.deepEqual(sent, [[a3, note(3)], [a4, note(4)]]);
  assert.deepEqual((await replay(store, a4)).sent, []);
});

Deno.test("createSessionEventStore() forgets the oldest events beyond its caps", async () => {
  const store = createSessionEventStore(createEventBudget(), { maxEvents: 2 });
  const first = await store.storeEvent("a", note(1));
  const second = await store.storeEvent("a", note(2));
  await store.storeEvent("a", note(3));
  assert.equal(await store.getStreamIdForEventId(first), undefined);
  assert.deepEqual(await replay(store, first), { streamId: "", sent: [] });
  assert.equal((await replay(store, second)).sent.length, 1);
  const small = createSessionEventStore(createEventBudget(), { maxBytes: 800 });
  const old = await small.storeEvent("a", note(1));
  await small.storeEvent("a", { jsonrpc: "2.0", method: "x", params: { pad: "y".repeat(200) } });
  await small.storeEvent("a", { jsonrpc: "2.0", method: "x", params: { pad: "y".repeat(200) } });
  assert.equal(await small.getStreamIdForEventId(old), undefined, "bytes cap drops the oldest");
});

Deno.test("attack: many sessions storing events stay within ONE byte budget, oldest of any session dropped first", async () => {
  const budget = createEventBudget({ maxBytes: 64 * 1024, maxEventBytes: 8 * 1024 });
  const stores = Array.from({ length: 100 }, () => createSessionEventStore(budget));
  const firstIds: string[] = [];
  const answer = (id: number) => ({
    jsonrpc: "2.0" as const,
    id,
    result: { contents: [{ uri: "skill://a/b", text: "x".repeat(2_000) }] },
  });
  for (const [index, store] of stores.entries()) {
    firstIds.push(await store.storeEvent("s", answer(index)));
    assert.ok(budget.usedBytes() <= budget.maxBytes, `within the budget after session ${index}`);
  }
  // 100 sessions x ~2.3 KiB each would be ~230 KiB; the budget keeps 64 KiB.
  assert.ok(budget.storedEvents() < 100 && budget.storedEvents() > 10, `${budget.storedEvents()}`);
  assert.equal(await stores[0]?.getStreamIdForEventId(firstIds[0] ?? ""), undefined);
  assert.equal(await stores[99]?.getStreamIdForEventId(firstIds[99] ?? ""), "s");
  for (const store of stores) store.dispose();
  assert.equal(budget.usedBytes(), 0, "a closed session gives its bytes back");
  assert.equal(budget.storedEvents(), 0);
});

Deno.test("attack: bytes are counted in UTF-8, not UTF-16 code units", async () => {
  const budget = createEventBudget({ maxBytes: 1024 * 1024, maxEventBytes: 64 * 1024 });
  const store = createSessionEventStore(budget);
  const text = "\u{1F600}".repeat(1_000); // 2,000 code units, 4,000 UTF-8 bytes
  const message = { jsonrpc: "2.0" as const, method: "n", params: { text } };
  await store.storeEvent("s", message);
  const utf8 = new TextEncoder().encode(JSON.stringify(message)).byteLength;
  assert.ok(utf8 > JSON.stringify(message).length + 1_500);
  assert.equal(store.bytes(), utf8 + STORED_EVENT_OVERHEAD_BYTES);
  assert.equal(budget.usedBytes(), store.bytes());
});

Deno.test("attack: an answer larger than the per-event limit is not kept; resuming gets an error telling to resend", async () => {
  const budget = createEventBudget({ maxBytes: 1024 * 1024, maxEventBytes: 4 * 1024 });
  const store = createSessionEventStore(budget);
  const primer = await store.storeEvent("s", {} as JSONRPCMessage);
  const huge = {
    jsonrpc: "2.0" as const,
    id: 7,
    result: { contents: [{ uri: "skill://a/big", blob: "A".repeat(1024 * 1024) }] },
  };
  await store.storeEvent("s", huge);
  assert.ok(budget.usedBytes() < 2 * 1024, `the 1 MiB answer is not kept (${budget.usedBytes()})`);
  const { sent } = await replay(store, primer);
  assert.equal(sent.length, 1);
  const kept = sent[0]?.[1] as { id: number; error: { code: number; message: string } };
  assert.equal(kept.id, 7);
  assert.equal(kept.error.code, JSONRPC_ANSWER_NOT_KEPT);
  assert.match(kept.error.message, /send the request again/);
  const bigNote = { jsonrpc: "2.0" as const, method: "n", params: { pad: "z".repeat(8_000) } };
  const dropped = await store.storeEvent("s", bigNote);
  assert.equal(
    await store.getStreamIdForEventId(dropped),
    undefined,
    "a big notification is not kept",
  );
});

Deno.test("createSessionEventStore() replays nothing for an id it never issued", async () => {
  const store = createSessionEventStore();
  await store.storeEvent("a", note(1));
  assert.deepEqual(await replay(store, "not-an-id"), { streamId: "", sent: [] });
});
