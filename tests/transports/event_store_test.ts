/** createSessionEventStore(): resumable SSE for one session, bounded. */

import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../../src/mcp/sdk.ts";
import { createSessionEventStore } from "../../src/transports/http/event_store.ts";

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
  const store = createSessionEventStore({ maxEvents: 2 });
  const first = await store.storeEvent("a", note(1));
  const second = await store.storeEvent("a", note(2));
  await store.storeEvent("a", note(3));
  assert.equal(await store.getStreamIdForEventId(first), undefined);
  assert.deepEqual(await replay(store, first), { streamId: "", sent: [] });
  assert.equal((await replay(store, second)).sent.length, 1);
  const small = createSessionEventStore({ maxBytes: 100 });
  const old = await small.storeEvent("a", note(1));
  await small.storeEvent("a", { jsonrpc: "2.0", method: "x", params: { pad: "y".repeat(200) } });
  assert.equal(await small.getStreamIdForEventId(old), undefined, "bytes cap drops the oldest");
});

Deno.test("createSessionEventStore() replays nothing for an id it never issued", async () => {
  const store = createSessionEventStore();
  await store.storeEvent("a", note(1));
  assert.deepEqual(await replay(store, "not-an-id"), { streamId: "", sent: [] });
});
