/**
 * Attacks on Deno's own cache folder (DENO_DIR) as the launcher hands it to
 * the program (r7, r9 on issue 13): Deno loads compiled code from it (gen/,
 * and a V8 code cache V8 checks only by the source's length) and writes it
 * with the caller's umask, so whoever may write there, or replace it, chooses
 * the code the trusted part runs with every permission. The launcher gives
 * Deno a closed folder of its own in `.bundle` (`<hash>/deno` for a bundle,
 * `deno` for the sources and bundle builds) and takes a caller's DENO_DIR
 * only when no one else can reach it. Cases that make a file another user's
 * need root (CI runs as root) and are skipped with one stderr line otherwise;
 * the ACL case needs `setfacl` (Debian package `acl`).
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** The uid of `nobody`: the other user of these attacks. */
const OTHER_USER = 65534;

const isRoot = Deno.uid() === 0;
if (!isRoot) {
  console.error("skipping the DENO_DIR attacks that plant another user's files: not root");
}

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
  console.error("skipping the DENO_DIR ACL attack: setfacl (package acl) is missing");
}

/** The permission bits of `path` (no link followed). */
async function modeOf(path: string): Promise<number> {
  return ((await Deno.lstat(path)).mode ?? 0) & 0o7777;
}

/** The names in a folder, sorted. */
async function namesIn(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

/** `--version` through a copy's launcher, HOME an empty folder of its own, DENO_DIR unset. */
async function launch(
  root: string,
  options: { env?: Record<string, string>; umask?: string } = {},
) {
  return await runLauncher(`${root}/skillgate`, ["--version"], {
    cwd: root,
    env: { HOME: `${root}/../home`, DENO_DIR: "", ...options.env },
    ...(options.umask === undefined ? {} : { umask: options.umask }),
  });
}

/** A checkout copy with an empty HOME beside it. */
async function copyWithHome(prefix: string) {
  const checkout = await checkoutCopy(prefix, "checkout");
  await Deno.mkdir(`${checkout.root}/../home`);
  return checkout;
}

Deno.test("launcher: under umask 002 the bundle runs with a closed Deno cache of its own, and HOME's is never made", async () => {
  await using checkout = await copyWithHome("skillgate-denodir-own-");
  const root = checkout.root;
  const first = await launch(root, { umask: "002" });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, `skillgate ${VERSION}\n`);
  const cache = `${root}/.bundle/${await recordedHash(root)}/deno`;
  assert.equal(await modeOf(cache), 0o700);
  // The served process compiled the bundle into it (with the caller's umask: files 664 inside).
  assert.ok((await namesIn(cache)).includes("v8_code_cache_v2"), String(await namesIn(cache)));
  assert.equal(await modeOf(`${root}/.bundle/deno`), 0o700);
  // Neither the build nor the run used Deno's default cache (~/.cache/deno).
  assert.deepEqual(await namesIn(`${root}/../home`), []);
  // What Deno wrote inside with umask 002 does not refuse the next start: no one else can reach it.
  const again = await launch(root, { umask: "002" });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, `skillgate ${VERSION}\n`);
  assert.doesNotMatch(again.stderr, /bundling|not using/);
});

Deno.test("launcher: the sources run keeps Deno's cache (transpiled code) in .bundle/deno, closed, never HOME's", async () => {
  await using checkout = await copyWithHome("skillgate-denodir-sources-");
  const root = checkout.root;
  await Deno.remove(`${root}/.bundle`, { recursive: true }).catch(() => {});
  const run = await launch(root, { env: { SKILLGATE_NO_BUNDLE: "1" }, umask: "002" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await modeOf(`${root}/.bundle/deno`), 0o700);
  assert.ok((await namesIn(`${root}/.bundle/deno`)).includes("gen"));
  assert.deepEqual(await namesIn(`${root}/../home`), []);
});

/** Attacks that open a bundle's Deno cache to someone else: it must be replaced before it runs. */
const openings: { name: string; ignore: boolean; open: (path: string) => Promise<void> }[] = [
  {
    name: "anyone may write and enter",
    ignore: false,
    open: (path) => Deno.chmod(path, 0o777),
  },
  {
    name: "its group may enter",
    ignore: false,
    open: (path) => Deno.chmod(path, 0o750),
  },
  {
    name: "an ACL lets another user write",
    ignore: !aclsWork,
    open: async (path) => {
      const set = await new Deno.Command("setfacl", {
        args: ["-m", `u:${OTHER_USER}:rwx`, path],
        stderr: "piped",
      }).output();
      assert.ok(set.success, new TextDecoder().decode(set.stderr));
    },
  },
];

for (const opening of openings) {
  Deno.test({
    name:
      `attack: a bundle's Deno cache folder that ${opening.name} is never loaded: the bundle is built again`,
    ignore: opening.ignore,
    fn: async () => {
      await using checkout = await copyWithHome("skillgate-denodir-open-");
      const root = checkout.root;
      const first = await launch(root);
      assert.equal(first.code, 0, first.stderr);
      const cache = `${root}/.bundle/${await recordedHash(root)}/deno`;
      await opening.open(cache);
      // What someone else put there (a code cache row, a file of theirs) must never be read.
      const planted = `${cache}/v8_code_cache_v2`;
      await Deno.writeTextFile(planted, "planted code cache\n");
      if (isRoot) await Deno.chown(planted, OTHER_USER, OTHER_USER);
      const run = await launch(root);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `skillgate ${VERSION}\n`);
      assert.match(run.stderr, /bundling the program/);
      assert.equal(await modeOf(cache), 0o700);
      const text = await Deno.readTextFile(planted).catch(() => "");
      assert.notEqual(text, "planted code cache\n", "the planted cache was kept");
    },
  });
}

Deno.test("launcher: a caller's DENO_DIR no one else can reach is used, and a missing one is made 0700", async () => {
  await using checkout = await copyWithHome("skillgate-denodir-caller-");
  const root = checkout.root;
  const first = await launch(root);
  assert.equal(first.code, 0, first.stderr);
  const mine = `${root}/../caches/deno`; // (makeTempDir's parent is 0700: closed above it)
  const run = await launch(root, { env: { DENO_DIR: mine } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await modeOf(mine), 0o700);
  assert.ok((await namesIn(mine)).includes("v8_code_cache_v2"), String(await namesIn(mine)));
});

/**
 * A caller's DENO_DIR the launcher may not use: the start goes on with the
 * launcher's own closed cache (stdout is the program's), one stderr line says
 * why and what to run, and Deno put nothing in the caller's folder.
 */
async function assertNotUsed(
  run: { code: number; stdout: string; stderr: string },
  root: string,
  dir: string,
  before: string[],
  why: RegExp,
): Promise<void> {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.match(run.stderr, why);
  assert.match(run.stderr, /using the launcher's own/);
  assert.deepEqual(await namesIn(dir), before, "Deno used the caller's DENO_DIR");
  const own = `${root}/.bundle/${await recordedHash(root)}/deno`;
  assert.ok((await namesIn(own)).includes("v8_code_cache_v2"), "the launcher's own was not used");
}

Deno.test("attack: a caller's DENO_DIR in a folder others may write (not sticky) is not used: the launcher's own serves, and says why", async () => {
  await using checkout = await copyWithHome("skillgate-denodir-parent-");
  const root = checkout.root;
  const parent = `${root}/..`;
  await Deno.chmod(parent, 0o755); // nothing above it closed
  const shared = `${parent}/shared`;
  await Deno.mkdir(shared);
  await Deno.chmod(shared, 0o777); // anyone may rename the cache away and put theirs there
  await Deno.mkdir(`${shared}/deno`, { mode: 0o700 });
  const run = await launch(root, { env: { DENO_DIR: `${shared}/deno` } });
  await assertNotUsed(
    run,
    root,
    `${shared}/deno`,
    [],
    /not using DENO_DIR=.*shared\/deno: the folder .*shared \(it or one holding it\)/,
  );
});

for (const [what, mode] of [["may write", 0o775], ["may only enter", 0o755]] as const) {
  Deno.test(`attack: a caller's DENO_DIR its group ${what}, a gen/ in it made under umask 002, is not used: the launcher's own serves, and says why`, async () => {
    await using checkout = await copyWithHome("skillgate-denodir-group-");
    const root = checkout.root;
    const parent = `${root}/..`;
    await Deno.chmod(parent, 0o755); // nothing above it closed
    const cache = `${parent}/deno`;
    await Deno.mkdir(`${cache}/gen`, { recursive: true });
    await Deno.chmod(cache, mode);
    await Deno.chmod(`${cache}/gen`, 0o775); // a group member may put transpiled code here
    const run = await launch(root, { env: { DENO_DIR: cache } });
    await assertNotUsed(
      run,
      root,
      cache,
      ["gen"],
      mode === 0o775
        ? /not using DENO_DIR=.*: the folder .*deno \(it or one holding it\)/
        : /not using DENO_DIR=.*its group or others may enter it.*rm -rf/,
    );
  });
}

Deno.test({
  name:
    "attack: a caller's DENO_DIR another user made (and may write) is not used; nothing in it runs",
  ignore: !isRoot,
  fn: async () => {
    await using checkout = await copyWithHome("skillgate-denodir-other-");
    const root = checkout.root;
    const parent = `${root}/..`;
    await Deno.chmod(parent, 0o755);
    const theirs = `${parent}/theirs`;
    await Deno.mkdir(`${theirs}/gen`, { recursive: true, mode: 0o700 });
    await Deno.chmod(theirs, 0o700);
    await Deno.chown(`${theirs}/gen`, OTHER_USER, OTHER_USER);
    await Deno.chown(theirs, OTHER_USER, OTHER_USER);
    const run = await launch(root, { env: { DENO_DIR: theirs } });
    await assertNotUsed(run, root, theirs, ["gen"], /not using DENO_DIR=.*theirs/);
  },
});

Deno.test({
  name:
    "attack: a closed caller's DENO_DIR holding another user's code cache (planted while it was open) is not used",
  ignore: !isRoot,
  fn: async () => {
    await using checkout = await copyWithHome("skillgate-denodir-planted-");
    const root = checkout.root;
    const parent = `${root}/..`;
    await Deno.chmod(parent, 0o755);
    const cache = `${parent}/deno`;
    await Deno.mkdir(cache, { mode: 0o700 });
    await Deno.chmod(cache, 0o700); // closed now, by its owner: what another user put stays
    await Deno.writeTextFile(`${cache}/v8_code_cache_v2`, "planted code cache\n");
    await Deno.chown(`${cache}/v8_code_cache_v2`, OTHER_USER, OTHER_USER);
    const run = await launch(root, { env: { DENO_DIR: cache } });
    await assertNotUsed(run, root, cache, ["v8_code_cache_v2"], /holds .*v8_code_cache_v2/);
    assert.equal(await Deno.readTextFile(`${cache}/v8_code_cache_v2`), "planted code cache\n");
  },
});
