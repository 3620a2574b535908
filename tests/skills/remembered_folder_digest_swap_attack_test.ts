/**
 * Review r5 of issue 13 (s10): a skill folder the build's loader remembered
 * as real (`rememberRealFolder`) is never `realpath`'d again in the worker,
 * so the first full `skills/list` resolves every file below it with one
 * `lstat` per segment, through whatever the folders above it are by then.
 * The folder above a skill swapped for a symlink to an outside copy after
 * the build must still never give a digest of outside bytes: the location
 * check after the open names the outside copy. Where the locator answers
 * null, the narrowed open's real-path check refuses it instead.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError } from "../../src/files/path_gate.ts";
import { createDigestCache } from "../../src/mcp/skills_extension/digest_cache.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { makeTree, skillMd } from "./_tree.ts";

const later = () => Date.now() + 60_000;

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

for (const locator of ["answers", "answers null"] as const) {
  Deno.test(`attack: the folder above a built skill swapped for a symlink to an outside copy gives no digest of outside bytes (locator ${locator})`, async () => {
    await using tree = await makeTree({
      "root/s/SKILL.md": skillMd("s", "Inside"),
      "root/s/references/guide.md": "inside guide\n",
      // The same shape outside, with bytes of the same size: only the location tells them apart.
      "outside/s/SKILL.md": skillMd("s", "SECRET"),
      "outside/s/references/guide.md": "SECRET guide\n",
    });
    const catalog = await buildCatalog([{ path: tree.at("root"), from: "argument" }], DEFAULT_CAPS);
    const skill = catalog.byName.get("s");
    const listed = skill?.files.find((file) => file.path === "references/guide.md");
    assert.ok(skill !== undefined && listed !== undefined);
    await Deno.rename(tree.at("root"), tree.at("root-old"));
    await Deno.symlink(tree.at("outside"), tree.at("root"));
    if (locator === "answers null") installFdLocator(() => Promise.resolve(null));
    try {
      const digests = createDigestCache({ now: later });
      const outcome = await digests.digest(skill.realDir, listed).then(
        (found) => found.digest,
        (error: unknown) => error,
      );
      assert.ok(outcome instanceof PathRefusedError, `expected a refusal, got ${outcome}`);
      assert.equal(outcome.code, "not-a-file", "refused after the open: the file moved");
      assert.notEqual(outcome, sha256("SECRET guide\n"));
      assert.equal(digests.hashed, 0, "nothing outside was read");
    } finally {
      installFdLocator(locateDirectly);
    }
  });
}
