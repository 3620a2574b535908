/**
 * The worker's wait for the owner's files (`src/worker/owner_files_gate.ts`)
 * is bounded (session 13, hA): a read the trusted part never answers, or one
 * it says failed, refuses the waiting requests (never serves them on older
 * overrides), and the next request asks again. Real timers, a short bound.
 */

import assert from "node:assert/strict";
import { OwnerFilesUnreadError } from "../../src/mcp/owner_files_wait.ts";
import { createOwnerFilesGate, OWNER_FILES_WAIT_MS } from "../../src/worker/owner_files_gate.ts";

const WAIT_MS = 60;

/** How a wait ended: "read", or the refusal's error. */
function outcome(wait: Promise<void>): Promise<"read" | OwnerFilesUnreadError> {
  return wait.then(() => "read" as const, (error: unknown) => {
    assert.ok(error instanceof OwnerFilesUnreadError, String(error));
    return error;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("createOwnerFilesGate(): a wait the trusted part never answers is refused after the bound, naming it, and the next wait asks again", async () => {
  let asked = 0;
  const gate = createOwnerFilesGate(() => asked++, { waitMs: WAIT_MS });
  const started = performance.now();
  const [first, second] = await Promise.all([outcome(gate.whenRead()), outcome(gate.whenRead())]);
  const elapsedMs = performance.now() - started;
  assert.equal(asked, 1, "two waits at once ask once");
  for (const refused of [first, second]) {
    assert.ok(refused instanceof OwnerFilesUnreadError);
    assert.equal(refused.isTimedOut, true);
    assert.match(refused.message, /did not finish reading .* within 0\.06 s.*ask again/);
  }
  assert.ok(elapsedMs >= WAIT_MS - 5, `refused after ${elapsedMs} ms`);
  assert.equal(gate.isRead, false, "a refusal never opens the gate");
  // Asked again; answered this time.
  const third = outcome(gate.whenRead());
  assert.equal(asked, 2, "the next wait did not ask again");
  gate.open();
  assert.equal(await third, "read");
  assert.equal(gate.isRead, true);
});

Deno.test("createOwnerFilesGate(): a failed read refuses every waiting request at once with the files' names; the next wait asks again", async () => {
  let asked = 0;
  const gate = createOwnerFilesGate(() => asked++, { waitMs: 60_000 });
  const waits = [outcome(gate.whenRead()), outcome(gate.whenRead())];
  gate.fail(["overrides.json"]);
  for (const refused of await Promise.all(waits)) {
    assert.ok(refused instanceof OwnerFilesUnreadError);
    assert.equal(refused.isTimedOut, false);
    assert.match(refused.message, /could not read its owner's settings \("overrides\.json"\)/);
    assert.doesNotMatch(refused.message, /\//, "a host path was sent to the client");
  }
  const next = outcome(gate.whenRead());
  assert.equal(asked, 2);
  gate.open();
  assert.equal(await next, "read");
  // Once open, a failure changes nothing, and waits resolve at once.
  gate.fail(["config.json"]);
  assert.equal(await outcome(gate.whenRead()), "read");
  assert.equal(asked, 2);
});

Deno.test("createOwnerFilesGate(): once the trusted part's read arrived (markRead), a wait outlives the bound until the gate opens, and a late failure is ignored", async () => {
  const gate = createOwnerFilesGate(() => {}, { waitMs: WAIT_MS });
  let settled: "read" | OwnerFilesUnreadError | null = null;
  const waiting = outcome(gate.whenRead()).then((result) => (settled = result));
  gate.markRead();
  const later = outcome(gate.whenRead());
  gate.fail(["overrides.json"]);
  await sleep(WAIT_MS * 3);
  assert.equal(settled, null, "a wait for the catalog to load was cut by the bound");
  gate.open();
  await waiting;
  assert.equal(settled, "read");
  assert.equal(await later, "read");
});

Deno.test("OWNER_FILES_WAIT_MS is a few seconds: far above two small reads, far under a client's 60 s request timeout", () => {
  assert.ok(
    OWNER_FILES_WAIT_MS >= 1_000 && OWNER_FILES_WAIT_MS <= 10_000,
    `${OWNER_FILES_WAIT_MS}`,
  );
});
