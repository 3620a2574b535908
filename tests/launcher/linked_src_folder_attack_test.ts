/**
 * The launcher with `src` itself a symlink (r9 LOW, 06:00): no bundle can be
 * built from it (content_hash's find does not follow it; deno bundle writes
 * its files outside the bundle's layout), so every start used to try again
 * (~3 s) and say "see below" above nothing. Now the sources run at once and
 * the launcher says why; an edit of the link's target still runs.
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

Deno.test("attack: `src` itself a symlink never makes a start try to bundle; the sources run and the launcher says why", async () => {
  await using checkout = await checkoutCopy("skillgate-s26-linked-src-", "checkout");
  const root = checkout.root;
  const target = `${root}/../src-target`;
  await Deno.rename(`${root}/src`, target);
  await Deno.symlink(target, `${root}/src`);
  for (let start = 0; start < 2; start++) {
    const run = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(run.stdout, `skillgate ${VERSION}\n`, run.stderr);
    assert.doesNotMatch(run.stderr, /bundling|could not bundle/, "a build was tried");
    assert.match(run.stderr, /running from the sources: .*\/src is a symlink/);
    assert.match(run.stderr, /replace it with the folder or file it points to/);
  }
  const bundles = [];
  for await (const entry of Deno.readDir(`${root}/.bundle`)) {
    if (/^[0-9a-f]{64}$/.test(entry.name)) bundles.push(entry.name);
  }
  assert.deepEqual(bundles, [], "no bundle was built");
  const source = await Deno.readTextFile(`${target}/version.ts`);
  await Deno.writeTextFile(`${target}/version.ts`, source.replace(`"${VERSION}"`, '"9.9.9-s26"'));
  const edited = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(edited.stdout, "skillgate 9.9.9-s26\n", edited.stderr);
});
