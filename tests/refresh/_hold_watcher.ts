/**
 * Test helper: held Deno's file watcher thread, as a busy machine delays it
 * (Deno 2.9.6's event filter opened each event's path on the watcher's one
 * thread; a FIFO's open waits for a writer). Live refresh's watch is now the
 * trusted part's inotify, which opens nothing: the FIFO holds no thread, and
 * the tests using this helper check that the swaps they stage are still seen
 * with the events handled in queue order.
 *
 * @module
 */

import assert from "node:assert/strict";

/**
 * Holds Deno's watcher thread: a FIFO made in a watched folder is opened by
 * its event filter, which waits there for a writer. Returns the release:
 * opening the FIFO read-write (never waits on Linux) lets the filter's open
 * return, then the FIFO is removed before that handle closes, so no later
 * open of it can wait again.
 *
 * @param fifo Where to make the FIFO: inside a watched folder, at a path no
 *   refresh reads (a dot-entry). It must not exist.
 * @returns The release (await it in a `finally`, or the watcher never closes).
 * @throws {AssertionError} When `mkfifo` fails.
 */
export async function holdWatcherThread(fifo: string): Promise<() => Promise<void>> {
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(made.code, 0, "mkfifo failed");
  return async () => {
    const handle = await Deno.open(fifo, { read: true, write: true });
    try {
      await Deno.remove(fifo);
    } finally {
      handle.close();
    }
  };
}
