/**
 * Attacks on the launcher's choice of Deno (r3 review of s7, issue 13): the
 * pinned deno in `.tools` is now preferred to a 2.9.x deno on PATH, and it
 * runs the trusted part with every permission, so a `.tools` deno that someone
 * else could have put (a folder anyone may write, another user's file) must
 * never run, as a bundle others could write never does (`only_mine`).
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

/** The uid and gid of `nobody`: another user. */
const OTHER_USER = 65534;

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

/**
 * A checkout copy whose `.tools` holds a pinned deno of its own: a script that
 * leaves a marker, then runs the real deno. Sources run (no bundle is built).
 */
async function checkoutWithToolsDeno(): Promise<
  { root: string; toolsDeno: string; ran: () => Promise<boolean> } & AsyncDisposable
> {
  const checkout = await checkoutCopy("skillgate-tools-deno-", "checkout");
  const root = checkout.root;
  await Deno.remove(`${root}/.tools/node_modules`);
  const dir = `${root}/.tools/node_modules/deno`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/package.json`,
    `{\n  "name": "deno",\n  "version": "2.9.6"\n}\n`,
  );
  const marker = `${root}/../tools deno ran`;
  const toolsDeno = `${dir}/deno`;
  await Deno.writeTextFile(toolsDeno, `#!/bin/sh\n: >"${marker}"\nexec "${REAL_DENO}" "$@"\n`, {
    mode: 0o755,
  });
  return {
    root,
    toolsDeno,
    ran: () => Deno.lstat(marker).then(() => true, () => false),
    [Symbol.asyncDispose]: () => checkout[Symbol.asyncDispose](),
  };
}

/** A folder holding only a `deno` link to the real one (a 2.9 deno on PATH). */
async function pathDenoDir(parent: string): Promise<string> {
  const bin = `${parent}/../path-deno`;
  await Deno.mkdir(bin);
  await Deno.symlink(REAL_DENO, `${bin}/deno`);
  return bin;
}

const NO_BUNDLE = { SKILLGATE_NO_BUNDLE: "1" };

Deno.test("launcher: a pinned deno in .tools that is this user's alone runs (the control for the attacks below)", async () => {
  await using checkout = await checkoutWithToolsDeno();
  const run = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: NO_BUNDLE,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await checkout.ran(), true);
});

Deno.test("attack: a pinned deno in a .tools folder anyone may write never runs: PATH's 2.9 deno does, or the launcher stops", async () => {
  await using checkout = await checkoutWithToolsDeno();
  await Deno.chmod(`${checkout.root}/.tools/node_modules/deno`, 0o777);
  const bin = await pathDenoDir(checkout.root);
  const withPath = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: { ...NO_BUNDLE, PATH: `${bin}:${launcherEnv().PATH}` },
  });
  assert.equal(withPath.code, 0, withPath.stderr);
  assert.equal(withPath.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await checkout.ran(), false, "the .tools deno others may write ran");
  assert.match(withPath.stderr, /not using .*\.tools/);
  const without = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: NO_BUNDLE,
  });
  assert.equal(without.code, 1);
  assert.equal(without.stdout, "");
  assert.match(without.stderr, /not running .*\.tools.*rm -rf .*\.tools/s);
  assert.equal(await checkout.ran(), false, "the .tools deno others may write ran");
});

Deno.test({
  name: "attack: a pinned deno in .tools owned by another user never runs",
  ignore: Deno.uid() !== 0, // only root can give a file to another user
  fn: async () => {
    await using checkout = await checkoutWithToolsDeno();
    await Deno.chown(checkout.toolsDeno, OTHER_USER, OTHER_USER);
    const run = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
      cwd: checkout.root,
      env: NO_BUNDLE,
    });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /belongs to\s+another user/);
    assert.equal(await checkout.ran(), false, "another user's .tools deno ran");
  },
});

Deno.test("attack: a group-writable pinned deno in .tools (a umask 002 install, a shared group) never runs: PATH's 2.9 deno does, or the launcher says what to chmod", async () => {
  await using checkout = await checkoutWithToolsDeno();
  await Deno.chmod(checkout.toolsDeno, 0o775);
  const bin = await pathDenoDir(checkout.root);
  const withPath = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: { ...NO_BUNDLE, PATH: `${bin}:${launcherEnv().PATH}` },
  });
  assert.equal(withPath.code, 0, withPath.stderr);
  assert.equal(withPath.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await checkout.ran(), false, "the .tools deno its group may write ran");
  assert.ok(withPath.stderr.includes(`chmod -R go-w ${checkout.root}/.tools`), withPath.stderr);
  const without = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: NO_BUNDLE,
  });
  assert.equal(without.code, 1);
  assert.equal(without.stdout, "");
  assert.match(without.stderr, /not running .*\.tools.*its group/s);
  assert.ok(without.stderr.includes(`chmod -R go-w ${checkout.root}/.tools`), without.stderr);
  assert.equal(await checkout.ran(), false, "the .tools deno its group may write ran");
  // Made go-w as the message says: it runs.
  await Deno.chmod(checkout.toolsDeno, 0o755);
  const fixed = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: NO_BUNDLE,
  });
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(await checkout.ran(), true);
});
