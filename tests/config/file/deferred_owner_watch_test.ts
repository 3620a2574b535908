/**
 * `serve` opens its owner-file watch after the worker's first answer, off
 * that answer's path (issue 13; src/config/file/deferred_owner_watch.ts),
 * or at once when a settings view's write needs it first: it must open
 * exactly once, and never be missing when something needs it.
 */

import assert from "node:assert/strict";
import { deferOwnerWatch } from "../../../src/config/file/deferred_owner_watch.ts";
import type { OwnerFilesWatch } from "../../../src/config/file/watch_owner_files.ts";

/** A stand-in watch and a counter of opens. */
function counted(watch: OwnerFilesWatch | null = {} as OwnerFilesWatch) {
  let opens = 0;
  return { open: () => (opens++, watch), opens: () => opens, watch };
}

/** A promise and its resolve/reject, settled by the test. */
function gate() {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** Lets queued promise reactions run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("the owner-file watch is not opened before the first answer, then opened once when it came", async () => {
  const watch = counted();
  const answered = gate();
  const deferred = deferOwnerWatch(watch.open, answered.promise);
  await settled();
  assert.equal(watch.opens(), 0, "opened before the first answer");
  assert.equal(deferred.isOpened, false);
  answered.open();
  await settled();
  assert.equal(watch.opens(), 1, "not opened after the first answer");
  assert.equal(deferred.isOpened, true);
  assert.equal(deferred.now(), watch.watch);
  assert.equal(watch.opens(), 1, "opened twice");
});

Deno.test("a settings view's write before the first answer opens the watch at once (its writer is never handed a missing watch), and the answer opens no second one", async () => {
  const watch = counted();
  const answered = gate();
  const deferred = deferOwnerWatch(watch.open, answered.promise);
  assert.equal(deferred.now(), watch.watch, "the write got no watch");
  assert.equal(watch.opens(), 1);
  answered.open();
  await settled();
  assert.equal(watch.opens(), 1, "a second watch was opened");
});

Deno.test("the watch still opens when the first-answer promise rejects; none to open (--static, --no-config) stays null and is asked once", async () => {
  const watch = counted();
  const answered = gate();
  deferOwnerWatch(watch.open, answered.promise);
  answered.fail(new Error("worker gone"));
  await settled();
  assert.equal(watch.opens(), 1);
  const none = counted(null);
  const deferred = deferOwnerWatch(none.open, Promise.resolve());
  await settled();
  assert.equal(deferred.now(), null);
  assert.equal(deferred.now(), null);
  assert.equal(none.opens(), 1);
});

Deno.test("s13 hA: an open that throws opens nothing and is tried again at the next now(); thrown at the first answer, it is not an unhandled rejection", async () => {
  let opens = 0;
  const watch = {} as OwnerFilesWatch;
  const answered = gate();
  const deferred = deferOwnerWatch(() => {
    if (++opens <= 2) throw new Error("no inotify service");
    return watch;
  }, answered.promise);
  answered.open();
  await settled();
  assert.equal(opens, 1);
  assert.equal(deferred.isOpened, false);
  assert.throws(() => deferred.now(), /no inotify service/);
  assert.equal(deferred.isOpened, false);
  assert.equal(deferred.now(), watch, "not tried again");
  assert.equal(deferred.isOpened, true);
  assert.equal(deferred.now(), watch);
  assert.equal(opens, 3);
});
