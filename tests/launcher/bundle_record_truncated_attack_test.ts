/**
 * The launcher's `.bundle/current` record (r9 review of s19's b6f65dd) is read
 * back with the shell's `.`: a record cut short (a crash or a full disk while
 * it was written, a copy interrupted) whose first line still names the
 * current bundle must never stop every later start with a shell syntax error;
 * the start goes on (the record is written again) and runs the program.
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

Deno.test("attack: a .bundle/current record cut short (an unterminated quote) never stops the start", async () => {
  await using checkout = await checkoutCopy("skillgate-r9-record-", "checkout");
  const root = checkout.root;
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(first.code, 0, first.stderr);
  const hash = await recordedHash(root);
  assert.match(hash, /^[0-9a-f]{64}$/);
  const record = await Deno.readTextFile(`${root}/.bundle/current`);
  // Cut inside the quoted survey: the first line (the hash) stays whole.
  const cut = record.slice(0, Math.floor(record.length / 2));
  assert.ok(cut.startsWith(`record_hash=${hash}\n`) && cut.includes("'"));
  await Deno.writeTextFile(`${root}/.bundle/current`, cut);
  for (let i = 0; i < 2; i++) {
    const run = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.deepEqual(
      { code: run.code, stdout: run.stdout },
      { code: 0, stdout: `skillgate ${VERSION}\n` },
      run.stderr,
    );
    assert.doesNotMatch(run.stderr, /Syntax error/);
  }
  assert.equal(await recordedHash(root), hash);
});
