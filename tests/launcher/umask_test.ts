/**
 * The launcher's one ownership rule (nothing it runs may be written by group
 * or others) must not lock out a user whose umask is 002 (newcomer review,
 * session 6): what the launcher installs, it installs go-w (its install steps
 * run under `umask go-w` in subshells; the program keeps the caller's umask).
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, othersMayWrite, recordedHash } from "./_checkout_copy.ts";

Deno.test("launcher: a umask 002 user's first run installs node_modules and the bundle go-w, quietly, and runs; so does the next", async () => {
  await using checkout = await checkoutCopy("skillgate-umask-", "checkout");
  const root = checkout.root;
  await Deno.remove(`${root}/node_modules`); // a first run: the dependencies are installed now
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root, umask: "002" });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, `skillgate ${VERSION}\n`);
  assert.match(first.stderr, /installing the locked dependencies/);
  assert.match(first.stderr, /bundling the program/);
  // stderr is no terminal (an MCP client's log): deno install's progress stays out of it.
  for (const line of first.stderr.trimEnd().split("\n")) assert.match(line, /^skillgate: /);
  assert.deepEqual(await othersMayWrite([`${root}/node_modules`, `${root}/.bundle`]), []);
  const bundled = await recordedHash(root);
  // The next run takes the bundle (nothing installed, nothing said); so do the sources.
  const again = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root, umask: "002" });
  assert.deepEqual(again, { code: 0, stdout: `skillgate ${VERSION}\n`, stderr: "" });
  assert.equal(await recordedHash(root), bundled);
  const sources = await runLauncher(`${root}/skillgate`, ["--version"], {
    cwd: root,
    umask: "002",
    env: { SKILLGATE_NO_BUNDLE: "1" },
  });
  assert.deepEqual(sources, { code: 0, stdout: `skillgate ${VERSION}\n`, stderr: "" });
});
