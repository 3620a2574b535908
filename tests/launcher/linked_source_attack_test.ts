/**
 * The launcher's bundle identity (r9 review of s19; main's launcher too): a
 * source file that is a symlink (src/x.ts -> a file elsewhere) is followed
 * by `deno bundle`, so the bundle holds its target's code; an edit of that
 * target must never leave the old bundle running (neither the quick start's
 * identities nor the content hash may skip the link).
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

Deno.test("attack: an edit to a symlinked source's target never runs as the old bundle", async () => {
  await using checkout = await checkoutCopy("skillgate-r9-linked-source-", "checkout");
  const root = checkout.root;
  const target = `${root}/../version-target.ts`;
  await Deno.rename(`${root}/src/version.ts`, target);
  await Deno.symlink(target, `${root}/src/version.ts`);
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(first.stdout, `skillgate ${VERSION}\n`, first.stderr);
  const source = await Deno.readTextFile(target);
  assert.ok(source.includes(`"${VERSION}"`));
  await Deno.writeTextFile(target, source.replace(`"${VERSION}"`, '"9.9.9-r9"'));
  const sources = await runLauncher(`${root}/skillgate`, ["--version"], {
    cwd: root,
    env: { SKILLGATE_NO_BUNDLE: "1" },
  });
  assert.equal(sources.stdout, "skillgate 9.9.9-r9\n", sources.stderr);
  const bundled = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(bundled.stdout, "skillgate 9.9.9-r9\n", "the old bundle ran for a changed source");
});
