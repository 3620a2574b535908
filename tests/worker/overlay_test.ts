/** The worker's live caps: only ever lowered, read at each use. */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { applyOwnerUpdate, createLiveCaps } from "../../src/worker/overlay.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { freezeCatalog } from "../../src/skills/_freeze.ts";
import { testConfig } from "../mcp/skills_extension/_connect.ts";

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

Deno.test("applyOwnerUpdate() applies the overlay and says whether a catalog cap went down, so a caller without a watcher yet can rebuild once it is up", () => {
  const config = testConfig();
  const store = createCatalogStore(freezeCatalog([], [], []));
  const caps = createLiveCaps(DEFAULT_CAPS);
  const context = { store, config, caps, refresh: null };
  const overlay = { overrides: {}, problems: [] };
  assert.equal(
    applyOwnerUpdate({ overlay, caps: { ...DEFAULT_CAPS, maxCallBytes: 2048 } }, context),
    false,
    "not a catalog cap: nothing to rebuild",
  );
  assert.equal(
    applyOwnerUpdate({ overlay, caps: { ...DEFAULT_CAPS, maxSkills: 5 } }, context),
    true,
    "a catalog cap went down: the catalog must be built again",
  );
  assert.equal(caps.view.maxSkills, 5);
  assert.equal(
    applyOwnerUpdate({ overlay, caps: { ...DEFAULT_CAPS, maxSkills: 5 } }, context),
    false,
    "the same caps again lower nothing",
  );
});
