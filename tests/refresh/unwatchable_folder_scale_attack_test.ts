/**
 * One folder live refresh cannot watch, among thousands of readable skill
 * folders (r7 review of s14's watch split): only that folder may be lost, and
 * planning around it must not cost one watcher per sibling (each recursive
 * watch of a folder sets up the kernel's watches over its whole tree, on the
 * worker's thread: 4,096 probes held it ~7 s at 6,000 skills and still left
 * ~1,900 readable folders unwatched, each reported "cannot watch it (limit)").
 */

import assert from "node:assert/strict";
import { MAX_PATHS_PER_WATCH, planWatch, type WatchOpener } from "../../src/refresh/watch_plan.ts";

/** Skill folders beside the unwatchable one: more than the planner's probe budget. */
const SIBLINGS = 5_000;

Deno.test("attack: one unwatchable folder among 5,000 sibling skill folders costs only that folder, planned in a few watcher opens", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-unwatchable-scale-" });
  try {
    const siblings: string[] = [];
    for (let index = 0; index < SIBLINGS; index++) {
      const folder = `${root}/s${String(index).padStart(5, "0")}`;
      Deno.mkdirSync(folder);
      siblings.push(folder);
    }
    const locked = `${root}/locked`;
    Deno.mkdirSync(locked);
    let opens = 0;
    // As Deno's watcher does for an unreadable folder: any recursive watch over it, or a watch
    // of it, fails naming it. (No kernel watch is set up: the test counts the opens.)
    const open: WatchOpener = (paths, options) => {
      opens++;
      for (const path of [paths].flat()) {
        if (path === locked || (options.recursive && locked.startsWith(`${path}/`))) {
          throw new Deno.errors.PermissionDenied(
            `Permission denied (os error 13) about ${JSON.stringify([locked])}`,
          );
        }
      }
      return { close: () => {} } as unknown as Deno.FsWatcher;
    };
    const plan = planWatch([root], open);
    assert.deepEqual(plan.lost, [{ root, folder: "locked", why: "PermissionDenied" }]);
    const watched = new Set([...plan.recursive, ...plan.flat]);
    const unwatched = siblings.filter((folder) => !watched.has(folder));
    assert.deepEqual(unwatched.slice(0, 3), [], `${unwatched.length} readable folders unwatched`);
    // Not one probe per sibling: the siblings in batches (one open each, of at most
    // MAX_PATHS_PER_WATCH paths: one open of thousands of recursive paths is superlinear in
    // Deno), plus a few opens along the named folder.
    const batches = Math.ceil(SIBLINGS / MAX_PATHS_PER_WATCH);
    assert.ok(opens <= batches + 8, `${opens} watcher opens to plan around one folder`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
