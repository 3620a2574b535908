/**
 * createWatchIsolateHost(): the trusted part starts watch isolates for a
 * worker only up to its bound, whatever the worker asks (each stuck one
 * leaks a thread until exit), and ends the running one before the next.
 */

import assert from "node:assert/strict";
import { isolateEntryUrl } from "../../src/entry_points.ts";
import { createWatchIsolateHost } from "../../src/sandbox/watch_isolate_host.ts";
import type { WatchIsolateEndedMessage } from "../../src/sandbox/messages.ts";

/** The isolate's answer to a probe over `port`, or "no answer" after a generous ceiling. */
async function probe(port: MessagePort, id: number): Promise<unknown> {
  const answer = new Promise<unknown>((resolve) => (port.onmessage = (e) => resolve(e.data)));
  port.postMessage({ type: "probe", id });
  // A port alone does not keep this test's event loop alive; the ceiling does (nothing timed).
  let ceiling: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise((resolve) => (ceiling = setTimeout(resolve, 30_000, "no answer")));
  try {
    return await Promise.race([answer, timedOut]);
  } finally {
    clearTimeout(ceiling);
  }
}

Deno.test("attack: a worker asking for watch isolates again and again gets at most the bound, then an ended answer", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-watch-host-" });
  const permissions = { read: [root], run: [], env: [], net: [], write: [], sys: [], ffi: [] };
  const host = createWatchIsolateHost(isolateEntryUrl("watch"), permissions, 3);
  const ended: WatchIsolateEndedMessage[] = [];
  const ports: MessagePort[] = [];
  const ask = () => {
    const channel = new MessageChannel();
    ports.push(channel.port1);
    host.start(channel.port2, (message) => ended.push(message));
    return channel.port1;
  };
  try {
    // Each one answers over its own port (the worker asks again only after one went silent).
    for (let n = 1; n <= 3; n++) {
      assert.deepEqual(await probe(ask(), n), { type: "alive", id: n }, JSON.stringify(ended));
    }
    assert.equal(ended.length, 0);
    // Past the bound: each request (it ends the running isolate: the worker found it stuck)
    // starts nothing and is told so.
    ask();
    ask();
    assert.equal(host.started, 3);
    assert.equal(ended.length, 2);
    assert.match(ended[0]!.reason, /3 watch isolates were started already/);
  } finally {
    host.stop();
    for (const port of ports) port.close();
    await Deno.remove(root, { recursive: true });
  }
});
