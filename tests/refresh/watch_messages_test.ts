/**
 * parseFromWatchIsolate(): the serving worker uses only messages of the
 * expected shape from the trusted part's watch (its word is checked like
 * any other part's).
 */

import assert from "node:assert/strict";
import { carryError, parseFromWatchIsolate, revive } from "../../src/refresh/watch_messages.ts";

Deno.test("parseFromWatchIsolate() keeps well-formed messages and drops a rescan flag it does not know", () => {
  const lost = { type: "lost", watch: 3, lost: [{ root: "/r", folder: ".", why: "WatchLimit" }] };
  assert.deepEqual(parseFromWatchIsolate(lost), lost);
  assert.deepEqual(
    parseFromWatchIsolate({
      type: "events",
      events: [{ watch: 1, kind: "modify", paths: ["/r/a"], flag: null }, {
        watch: 1,
        kind: "any",
        paths: [],
        flag: "rescan",
      }],
    }),
    {
      type: "events",
      events: [{ watch: 1, kind: "modify", paths: ["/r/a"] }, {
        watch: 1,
        kind: "any",
        paths: [],
        flag: "rescan",
      }],
    },
  );
  const opened = {
    type: "opened",
    id: 2,
    watches: [4, 5],
    lost: [{ root: "/r", folder: "x", why: "PermissionDenied" }],
    flat: ["/r"],
    flatEntries: [["/r", ["/r/a"]]],
    pathCount: 2,
  };
  assert.deepEqual(parseFromWatchIsolate(opened), opened);
});

Deno.test("parseFromWatchIsolate() drops every malformed message", () => {
  const bad: unknown[] = [
    null,
    { type: "alive", id: 1 },
    { type: "lost", watch: 1.5, lost: [] },
    { type: "lost", watch: 1, lost: [{ root: "/r" }] },
    { type: "events", events: "x" },
    { type: "events", events: [{ watch: 1, kind: "explode", paths: [] }] },
    { type: "events", events: [{ watch: 1, kind: "create", paths: [7] }] },
    { type: "events", events: [{ watch: 1, kind: "create", paths: [], flag: "other" }] },
    { type: "opened", id: 1, watches: ["1"], lost: [], flat: [], flatEntries: [], pathCount: 0 },
    { type: "opened", id: 1, watches: [], lost: [{}], flat: [], flatEntries: [], pathCount: 0 },
    { type: "opened", id: 1, watches: [], lost: [], flat: [], flatEntries: [["/r"]], pathCount: 0 },
    { type: "open-failed", id: 1, error: "boom" },
    { type: "watch-ended", watch: 1, error: 3 },
    { type: "unknown" },
  ];
  for (const message of bad) {
    assert.equal(parseFromWatchIsolate(message), null, JSON.stringify(message));
  }
});

Deno.test("carryError() and revive() keep an open error's name and message (the plan reads both)", () => {
  const error = new Error('Permission denied (os error 13) about ["/r/locked"]');
  error.name = "PermissionDenied";
  const again = revive(carryError(error));
  assert.equal(again.name, "PermissionDenied");
  assert.equal(again.message, error.message);
});
