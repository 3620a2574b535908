/**
 * `ConnSocket`'s write stall timeout over a real loopback pair: a peer that
 * reads nothing gets its connection closed after the bound, a peer that reads
 * slowly but keeps reading is never cut. Bounds are generous; nothing here
 * asserts how fast.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ConnSocket, WRITE_STALLED_EVENT } from "../../src/transports/http/conn_socket.ts";

/** More than loopback's socket buffers take unread (about 4 MiB here), so a non-reader stalls. */
const PAYLOAD_BYTES = 8 * 1024 * 1024;

/** A connected loopback pair: `server` wrapped as a ConnSocket, `peer` the raw client side. */
async function pair(): Promise<{ socket: ConnSocket; peer: Deno.TcpConn } & AsyncDisposable> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const [peer, accepted] = await Promise.all([
      Deno.connect({ hostname: "127.0.0.1", port }),
      listener.accept(),
    ]);
    const socket = new ConnSocket(accepted);
    socket.on("error", () => {});
    return {
      socket,
      peer,
      [Symbol.asyncDispose]: async () => {
        socket.destroy();
        try {
          peer.close();
        } catch { /* already closed */ }
        await new Promise((resolve) => setTimeout(resolve, 0));
      },
    };
  } finally {
    listener.close();
  }
}

/** Writes `bytes` through the socket; resolves true when every byte was taken, false on a failure. */
function writeAllOf(socket: ConnSocket, bytes: Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    socket.write(bytes, (error) => resolve(error == null));
    socket.once("close", () => resolve(false));
  });
}

Deno.test("attack: ConnSocket closes a connection whose peer reads nothing once a write stalls for the bound", async () => {
  await using connected = await pair();
  const { socket } = connected;
  socket.setWriteStallTimeout(500);
  let stalls = 0;
  socket.on(WRITE_STALLED_EVENT, () => stalls++);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const wrote = writeAllOf(socket, new Uint8Array(PAYLOAD_BYTES));
  await closed; // the only thing that can end it: the peer never reads
  assert.equal(await wrote, false);
  assert.equal(stalls, 1);
  assert.ok(socket.destroyed);
});

Deno.test("ConnSocket never cuts a peer that reads slowly but keeps reading", async () => {
  await using connected = await pair();
  const { socket, peer } = connected;
  // The peer pauses 300 ms between reads; the bound is ten times that (load on a shared machine).
  socket.setWriteStallTimeout(3_000);
  let stalls = 0;
  socket.on(WRITE_STALLED_EVENT, () => stalls++);
  const payload = new Uint8Array(PAYLOAD_BYTES).fill(7);
  const wrote = writeAllOf(socket, payload);
  const buffer = new Uint8Array(64 * 1024);
  let received = 0;
  let isOpen = true;
  while (isOpen && received < PAYLOAD_BYTES) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Then 512 KiB at once, and a pause again.
    for (let round = 0; round < 512 * 1024 && received < PAYLOAD_BYTES;) {
      const read = await peer.read(buffer);
      if (read === null) {
        isOpen = false;
        break;
      }
      received += read;
      round += read;
    }
  }
  assert.equal(received, PAYLOAD_BYTES);
  assert.equal(await wrote, true);
  assert.equal(stalls, 0);
  assert.ok(!socket.destroyed);
});
