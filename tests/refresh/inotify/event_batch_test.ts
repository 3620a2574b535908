/**
 * createEventBatch(): one `events` message says which paths changed, once
 * each, and a flood past the bound becomes one rescan of its watch (the
 * session 11 CI failure: a folder exchanged in a tight loop sent messages of
 * tens of thousands of events and starved `skill_list`).
 */

import assert from "node:assert/strict";
import {
  createEventBatch,
  MAX_EVENTS_PER_BATCH,
} from "../../../src/refresh/inotify/event_batch.ts";
import type { CarriedEvent } from "../../../src/refresh/watch_messages.ts";

const event = (
  watch: number,
  path: string,
  kind: CarriedEvent["kind"] = "modify",
): CarriedEvent => ({
  watch,
  kind,
  paths: [path],
});

Deno.test("createEventBatch() keeps one event per watch, kind and path, in first arrival order", () => {
  const batch = createEventBatch();
  assert.equal(batch.add(event(1, "/r/team")), true, "the first event says a flush is due");
  for (let round = 0; round < 10_000; round++) {
    assert.equal(batch.add(event(1, "/r/team")), false);
    batch.add(event(1, "/r/team.link", "create"));
    batch.add(event(2, "/r/team"));
  }
  batch.add(event(1, "/r/team", "remove"));
  assert.equal(batch.size, 4);
  assert.deepEqual(batch.take(), [
    event(1, "/r/team"),
    event(1, "/r/team.link", "create"),
    event(2, "/r/team"),
    event(1, "/r/team", "remove"),
  ]);
  assert.equal(batch.size, 0);
  assert.equal(batch.add(event(1, "/r/team")), true, "a taken batch starts empty");
});

Deno.test("createEventBatch(): a rescan stands for every event of its watch, before and after it", () => {
  const batch = createEventBatch();
  batch.add(event(1, "/r/a"));
  batch.add(event(2, "/r/b"));
  batch.add(event(1, "/r/c"));
  batch.add({ watch: 1, kind: "other", paths: [], flag: "rescan" });
  batch.add(event(1, "/r/d"));
  batch.add({ watch: 1, kind: "other", paths: [], flag: "rescan" });
  assert.equal(batch.size, 2);
  assert.deepEqual(batch.take(), [
    event(2, "/r/b"),
    { watch: 1, kind: "other", paths: [], flag: "rescan" },
  ]);
});

Deno.test("attack: a flood of distinct paths past the bound becomes one rescan, so a message stays small", () => {
  const batch = createEventBatch(8);
  for (let index = 0; index < 100_000; index++) batch.add(event(1, `/r/file-${index}`));
  batch.add(event(2, "/r/other"));
  const taken = batch.take();
  assert.deepEqual(taken, [
    { watch: 1, kind: "other", paths: [], flag: "rescan" },
    { watch: 2, kind: "other", paths: [], flag: "rescan" },
  ]);
  assert.ok(MAX_EVENTS_PER_BATCH >= 1_000, "a git checkout's paths still arrive as paths");
  assert.throws(() => createEventBatch(0), RangeError);
});
