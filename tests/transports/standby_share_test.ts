/**
 * `createStandbyShare()` (src/transports/http/standby_share.ts): each client
 * unit's open standby streams are bounded, and each stream is bound to the
 * session that opened it: at the count only that session's own oldest
 * stream gives way to its new one; anyone else's new stream is refused
 * (review r17, hF-2: a NAT neighbour shares the unit).
 */

import assert from "node:assert/strict";
import { createStandbyShare } from "../../src/transports/http/standby_share.ts";

/** A streaming answer whose source tells when it was cancelled. */
function streamingAnswer() {
  const state = { isCancelled: false };
  const body = new ReadableStream<Uint8Array>({
    cancel() {
      state.isCancelled = true;
    },
  });
  return { response: new Response(body, { status: 200 }), state };
}

Deno.test("createStandbyShare(): at the count a session's new stream closes that session's own oldest, never another session's", async () => {
  const share = createStandbyShare(2);
  const mineOld = streamingAnswer();
  const theirs = streamingAnswer();
  const mineNew = streamingAnswer();
  const sent = [
    share.open("198.51.100.7", "session-a", mineOld.response),
    share.open("198.51.100.7", "session-b", theirs.response),
    share.open("198.51.100.7", "session-a", mineNew.response),
  ];
  assert.ok(sent.every((response) => response !== null));
  assert.equal(share.count("198.51.100.7"), 2);
  assert.equal(share.closedForNewer(), 1);
  assert.equal(mineOld.state.isCancelled, true, "session a's oldest gave way");
  assert.equal(theirs.state.isCancelled, false, "session b's stream stays");
  assert.equal((await sent[0]!.body!.getReader().read()).done, true, "its client sees it end");
  for (const response of sent.slice(1)) await response!.body!.cancel();
  assert.equal(share.count("198.51.100.7"), 0);
});

Deno.test("attack (r17 hF-2): createStandbyShare() refuses a new stream at the count when its session holds none, or it has no session; the open ones stay", async () => {
  const share = createStandbyShare(1);
  const victim = streamingAnswer();
  const open = share.open("198.51.100.7", "victim-session", victim.response);
  assert.ok(open !== null);
  for (const owner of ["neighbour-session", null]) {
    const neighbour = streamingAnswer();
    assert.equal(share.open("198.51.100.7", owner, neighbour.response), null, String(owner));
    assert.equal(neighbour.state.isCancelled, true, "the refused answer's body is cancelled");
  }
  assert.equal(victim.state.isCancelled, false, "the victim's stream was closed");
  assert.equal(share.count("198.51.100.7"), 1);
  assert.equal(share.refused(), 2);
  assert.equal(share.closedForNewer(), 0);
  // Another unit has a count of its own.
  const elsewhere = share.open("192.0.2.1", null, streamingAnswer().response);
  assert.ok(elsewhere !== null);
  await elsewhere.body!.cancel();
  await open.body!.cancel();
  assert.equal(share.count("198.51.100.7"), 0);
});
