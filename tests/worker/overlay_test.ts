/** The worker's live caps: only ever lowered, read at each use. */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { createLiveCaps } from "../../src/worker/overlay.ts";

Deno.test("createLiveCaps(): lower() lowers, ignores a raise, and says when a catalog cap went down", () => {
  const caps = createLiveCaps(DEFAULT_CAPS);
  const view = caps.view;
  assert.equal(caps.lower({ ...DEFAULT_CAPS, maxCallBytes: 4096 }), false, "not a catalog cap");
  assert.equal(view.maxCallBytes, 4096, "the view reads the new value");
  assert.equal(caps.lower({ ...DEFAULT_CAPS, maxSkills: 10 }), true);
  assert.equal(view.maxSkills, 10);
  assert.equal(caps.lower({ ...DEFAULT_CAPS, maxSkills: 500 }), false);
  assert.equal(view.maxSkills, 10, "attack: a raise is never applied while serving");
  assert.equal(view.maxCallBytes, 4096);
  assert.deepEqual(JSON.parse(JSON.stringify(view)).maxSkills, 10);
});
