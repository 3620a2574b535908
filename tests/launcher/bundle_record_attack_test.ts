/**
 * Attack on the launcher's bundle record (r7 review, issue 13): the launcher
 * reads `.bundle/current` with the shell's `read`, one byte a system call, to
 * take the identity shortcut. In a `.bundle` others can write (refused later
 * by only_mine), another user's record of one line without end held the start
 * for minutes before that refusal. The record is read only when this user
 * owns it and it is no symlink.
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

/** The uid and gid of `nobody`: another user. */
const OTHER_USER = 65534;

/** How long the launcher may take before the run counts as held (`timeout` ends it, exit 124). */
const HELD_AFTER_S = 60;

Deno.test({
  name:
    "attack: another user's endless .bundle/current in a writable .bundle never holds the start: it is refused at once",
  ignore: Deno.uid() !== 0,
  fn: async () => {
    await using checkout = await checkoutCopy("skillgate-bundle-record-", "checkout");
    const root = checkout.root;
    const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(first.code, 0, first.stderr);
    const record = `${root}/.bundle/current`;
    assert.ok((await Deno.stat(record)).isFile, "the first run records its bundle");
    // Another user replaces the record (the folder lets anyone write) with 1 GiB, no newline:
    // sparse, so it costs no disk.
    await Deno.remove(record);
    const planted = await Deno.open(record, { write: true, createNew: true });
    await planted.truncate(1024 * 1024 * 1024);
    planted.close();
    await Deno.chown(record, OTHER_USER, OTHER_USER);
    await Deno.chmod(`${root}/.bundle`, 0o777);

    const run = await runLauncher(
      "timeout",
      [String(HELD_AFTER_S), `${root}/skillgate`, "--version"],
      { cwd: root },
    );
    assert.notEqual(run.code, 124, `the start was held over ${HELD_AFTER_S} s reading the record`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `skillgate ${VERSION}\n`);
    assert.match(run.stderr, /not using .*\.bundle: it is a symlink, belongs to another user/);
  },
});
