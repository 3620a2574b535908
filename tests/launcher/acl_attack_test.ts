/**
 * Attacks on the launcher's trust checks through POSIX ACLs (r7 review of
 * issue 13's launcher work): `setfacl -m u:OTHER:rwx` lets one other user
 * write a file or folder whose owner is still this user; the mode's group
 * bits then show the ACL mask (`-rwxrwxr-x+`), so a rule that allows a group
 * write bit lets that user replace what the launcher runs. Needs `setfacl`
 * (Debian package `acl`, which .ci/run installs); skipped with one stderr line
 * without it, except in CI (`CI=true`), where its absence fails.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** The uid of `nobody`: the other user an ACL entry lets write. */
const OTHER_USER = 65534;

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

/** Whether `setfacl` can set an ACL here (the tool is installed and /tmp supports ACLs). */
async function canSetAcl(): Promise<boolean> {
  const probe = await Deno.makeTempFile({ prefix: "skillgate-acl-probe-" });
  try {
    const set = await new Deno.Command("setfacl", {
      args: ["-m", `u:${OTHER_USER}:rw`, probe],
      stdout: "null",
      stderr: "null",
    }).output();
    return set.success;
  } catch {
    return false; // no setfacl
  } finally {
    await Deno.remove(probe);
  }
}

const aclsWork = await canSetAcl();
if (!aclsWork) {
  if (Deno.env.get("CI") === "true") {
    throw new Error(
      "setfacl cannot set an ACL here: .ci/run installs Debian's acl for these tests",
    );
  }
  console.error("skipping the launcher ACL attacks: setfacl (package acl) is missing");
}

/** Gives `OTHER_USER` read, write and search of `path` by an ACL entry; the owner stays ours. */
async function letOtherUserWrite(path: string): Promise<void> {
  const set = await new Deno.Command("setfacl", {
    args: ["-m", `u:${OTHER_USER}:rwx`, path],
    stderr: "piped",
  }).output();
  assert.ok(set.success, new TextDecoder().decode(set.stderr));
  assert.equal((await Deno.stat(path)).uid, Deno.uid());
}

Deno.test({
  name: "attack: a pinned .tools deno whose folder an ACL lets another user write never runs",
  ignore: !aclsWork,
  fn: async () => {
    await using checkout = await checkoutCopy("skillgate-acl-tools-", "checkout");
    const root = checkout.root;
    // A pinned deno of its own in .tools: it leaves a marker, then runs the real one.
    await Deno.remove(`${root}/.tools/node_modules`);
    const dir = `${root}/.tools/node_modules/deno`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/package.json`,
      `{\n  "name": "deno",\n  "version": "2.9.6"\n}\n`,
    );
    const marker = `${root}/../tools deno ran`;
    await Deno.writeTextFile(
      `${dir}/deno`,
      `#!/bin/sh\n: >"${marker}"\nexec "${REAL_DENO}" "$@"\n`,
      {
        mode: 0o755,
      },
    );
    // `nobody` may now rename deno away and put its own in this folder.
    await letOtherUserWrite(dir);
    const bin = `${root}/../path-deno`;
    await Deno.mkdir(bin);
    await Deno.symlink(REAL_DENO, `${bin}/deno`);
    const run = await runLauncher(`${root}/skillgate`, ["--version"], {
      cwd: root,
      env: { SKILLGATE_NO_BUNDLE: "1", PATH: `${bin}:${launcherEnv().PATH}` },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `skillgate ${VERSION}\n`);
    const ran = await Deno.lstat(marker).then(() => true, () => false);
    assert.equal(ran, false, "the .tools deno another user may replace ran");
    assert.match(run.stderr, /not using .*\.tools/);
  },
});

Deno.test({
  name: "attack: a bundle file an ACL lets another user write never runs",
  ignore: !aclsWork,
  fn: async () => {
    await using checkout = await checkoutCopy("skillgate-acl-bundle-", "checkout");
    const root = checkout.root;
    const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(first.code, 0, first.stderr);
    const hash = await recordedHash(root);
    const main = `${root}/.bundle/${hash}/main.js`;
    await letOtherUserWrite(main);
    await Deno.writeTextFile(main, 'console.log("planted bundle ran");\n'); // as nobody could
    const run = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `skillgate ${VERSION}\n`, "the bundle another user may write ran");
  },
});
