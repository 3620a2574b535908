/**
 * Attacks on the launcher's rule "a bundle never runs for other sources" (r7
 * review of issue 13's launcher work): a bundle is named by the sources'
 * content hash, and `.bundle/current` lets the sources' identities stand for
 * that hash; neither may ever keep a bundle built from bytes the sources no
 * longer hold.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

Deno.test("attack: a source edited during the bundle build and put back never leaves the edited bundle running", async () => {
  await using checkout = await checkoutCopy("skillgate-stale-bundle-", "checkout");
  const root = checkout.root;
  // PATH's deno runs (no pinned one in .tools): a wrapper that, while `deno bundle` reads
  // the sources, holds an edited src/version.ts, and puts the original bytes back after
  // (a branch switched and back, an editor's save and undo, during the build).
  await Deno.remove(`${root}/.tools/node_modules`);
  const bin = `${root}/../bin`;
  await Deno.mkdir(bin);
  const version = `${root}/src/version.ts`;
  const original = await Deno.readTextFile(version);
  await Deno.writeTextFile(`${root}/../edited.ts`, original.replace(VERSION, "6.6.6-edited"));
  await Deno.writeTextFile(`${root}/../original.ts`, original);
  await Deno.writeTextFile(
    `${bin}/deno`,
    `#!/bin/sh\nif [ "$1" = bundle ]; then\n` +
      `  cp "${root}/../edited.ts" "${version}"\n` +
      `  "${REAL_DENO}" "$@"; status=$?\n` +
      `  cp "${root}/../original.ts" "${version}"\n  exit $status\nfi\n` +
      `exec "${REAL_DENO}" "$@"\n`,
    { mode: 0o755 },
  );
  const run = () =>
    runLauncher(`${root}/skillgate`, ["--version"], {
      cwd: root,
      env: { PATH: `${bin}:${launcherEnv().PATH}` },
    });
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(version), original);
  assert.equal(first.stdout, `skillgate ${VERSION}\n`, "the edited sources' bundle ran");
  // Nor later: whatever the first run kept is never the edited program.
  const second = await run();
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, `skillgate ${VERSION}\n`, "the edited sources' bundle ran");
});
