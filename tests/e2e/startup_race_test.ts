/**
 * Attack (issue 11 item 6): while skillgate starts, a process that can write
 * inside a skill flips its SKILL.md between a real file, a symlink to a
 * secret file outside the skill and a FIFO. Before the catalog read SKILL.md
 * through the path gate's verified open, 4 starts in 12 served the outside
 * file through skill_load and skill_list, and 3 in 10 hung for good on the
 * FIFO. Bounded for CI: 50 starts or 60 s, whichever comes first (the longer
 * loop is `make bench --only=startup-race`). A race cannot prove absence;
 * the gate's refusals are proven deterministically in
 * tests/skills/skill_md_gate_test.ts.
 */

import assert from "node:assert/strict";
import { runStartupRace, SECRET_MARKER } from "../support/startup_race.ts";

/** A start that has not answered by then is hung (a bound against "for good", not a speed check). */
const HANG_MS = 45_000;

Deno.test("attack: SKILL.md swapped for an outside symlink or a FIFO during start-up is never served and never hangs start-up", async () => {
  const result = await runStartupRace({ maxStarts: 50, maxMs: 60_000, hangMs: HANG_MS });
  assert.ok(result.starts >= 1, "at least one start ran");
  assert.equal(result.leaks, 0, `${SECRET_MARKER} reached an answer in ${result.leaks} starts`);
  assert.equal(result.hangs, 0, `${result.hangs} of ${result.starts} starts hung`);
  assert.ok(result.trustedBuilds >= 1, "the trusted part built the catalog at least once");
  assert.ok(result.calmServes, "once the swapping stops, the real skill is served");
});
