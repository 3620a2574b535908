/**
 * Attacks on the launcher's DENO_DIR trust (r9 review of s19's b6f65dd):
 * Deno loads compiled code from its cache folder (the V8 code cache, keyed by
 * a non-cryptographic source hash that V8 itself checks only by length; gen/),
 * so whoever can replace what `DENO_DIR` names runs code in the trusted part
 * with every permission. A folder the launcher checked is still replaceable
 * by whoever may write its parent or any folder above it (also when the path
 * given is a link to it), and a shared folder holds other users' files.
 * Each attack passes when the launcher refuses (saying what to do) or does not
 * use the folder.
 *
 * Runs as root only (another user's ownership is set with chown); skipped
 * with one stderr line otherwise.
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LAUNCHER, launcherEnv, type LauncherRun, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { recordedHash } from "./_checkout_copy.ts";

/** The uid and gid of `nobody`: the other user. */
const OTHER_USER = 65534;

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

const isRoot = Deno.uid() === 0;
if (!isRoot) {
  console.error("skipping the DENO_DIR swap attacks: they chown to another user (root only)");
}

/** The trusted part's runtime flags (the V8 flags decide whether V8 accepts a code cache). */
const RUNTIME_FLAGS: readonly string[] = JSON.parse(
  await Deno.readTextFile(`${REPO_ROOT}src/sandbox/trusted_flags.json`),
).runtime;

/** Runs `--version` through this checkout's launcher with DENO_DIR set. */
function launchWith(denoDir: string, env: Record<string, string> = {}): Promise<LauncherRun> {
  return runLauncher(LAUNCHER, ["--version"], {
    cwd: REPO_ROOT,
    env: { DENO_DIR: denoDir, ...env },
  });
}

/** The names in `dir` (sorted). */
async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/**
 * The launcher refused (exit 1, naming DENO_DIR and what to run), or ran
 * without putting anything in `dir` (it did not use it).
 */
async function refusedOrUnused(run: LauncherRun, dir: string, before: string[]): Promise<void> {
  if (run.code !== 0) {
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /DENO_DIR/);
    assert.match(run.stderr, /run: /);
    return;
  }
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.deepEqual(await entries(dir), before, "the launcher let Deno use a swappable DENO_DIR");
}

/** `chown -h` (the link itself, or a folder) to the other user. */
async function chownToOther(path: string, recursive = false): Promise<void> {
  const out = await new Deno.Command("chown", {
    args: [...(recursive ? ["-R"] : []), "-h", `${OTHER_USER}:${OTHER_USER}`, path],
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

Deno.test({
  name:
    "attack: a DENO_DIR in a folder another user owns (they rename it after the check) is not used",
  ignore: !isRoot,
  async fn() {
    const parent = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-parent-" });
    try {
      await Deno.chmod(parent, 0o755);
      await chownToOther(parent);
      const dir = `${parent}/deno`;
      await Deno.mkdir(dir, { mode: 0o700 });
      await Deno.chmod(dir, 0o700);
      await refusedOrUnused(await launchWith(dir), dir, []);
    } finally {
      await Deno.remove(parent, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "attack: a DENO_DIR link (this user's) to a folder inside another user's folder is not used",
  ignore: !isRoot,
  async fn() {
    const mine = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-mine-" });
    const theirs = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-theirs-" });
    try {
      const target = `${theirs}/deno`;
      await Deno.mkdir(target, { mode: 0o700 });
      await Deno.chmod(target, 0o700);
      await Deno.chmod(theirs, 0o755);
      await chownToOther(theirs);
      await Deno.symlink(target, `${mine}/deno`);
      await refusedOrUnused(await launchWith(`${mine}/deno`), target, []);
    } finally {
      await Deno.remove(mine, { recursive: true });
      await Deno.remove(theirs, { recursive: true });
    }
  },
});

Deno.test({
  name: "attack: a V8 code cache another user planted in a shared DENO_DIR never runs",
  ignore: !isRoot,
  async fn() {
    const first = await runLauncher(LAUNCHER, ["--version"], { cwd: REPO_ROOT });
    assert.equal(first.code, 0, first.stderr);
    const hash = await recordedHash(REPO_ROOT);
    assert.match(hash, /^[0-9a-f]{64}$/);
    const main = `${REPO_ROOT}.bundle/${hash}/main.js`;
    const work = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-plant-" });
    try {
      // (Reachable by the other user: a folder closed above it would keep them out.)
      await Deno.chmod(work, 0o755);
      const dir = `${work}/shared`;
      await Deno.mkdir(dir);
      await Deno.chmod(dir, 0o777);
      const runMain = (denoDir: string, file: string) =>
        new Deno.Command(REAL_DENO, {
          args: [
            "run",
            "--config",
            `${REPO_ROOT}deno.json`,
            ...RUNTIME_FLAGS,
            "--allow-all",
            file,
            "--version",
          ],
          cwd: work,
          clearEnv: true,
          env: { ...launcherEnv(), DENO_DIR: denoDir },
          stdout: "piped",
          stderr: "piped",
        }).output();
      // Another user runs the bundle with the shared folder (its code cache rows are theirs) ...
      for (let i = 0; i < 2; i++) assert.ok((await runMain(dir, main)).success);
      // ... and swaps main.js's bytecode for a program of the same length (V8 checks the length).
      const marker = "r9 planted code cache ran";
      const size = (await Deno.stat(main)).size;
      const payload = `console.error(${JSON.stringify(marker)});`;
      await Deno.writeTextFile(`${work}/p.js`, payload.padEnd(size - 1, " ") + "\n");
      for (let i = 0; i < 2; i++) await runMain(`${work}/scratch`, `${work}/p.js`);
      const scratch = new DatabaseSync(`${work}/scratch/v8_code_cache_v2`);
      const row = scratch.prepare("select data from codecache where specifier = ?")
        .get(`file://${work}/p.js`) as { data: Uint8Array } | undefined;
      scratch.close();
      assert.ok(row !== undefined, "no code cache for the payload");
      const shared = new DatabaseSync(`${dir}/v8_code_cache_v2`);
      const changed = shared.prepare("update codecache set data = ? where specifier = ?")
        .run(row.data, `file://${main}`);
      shared.exec("pragma wal_checkpoint(TRUNCATE)");
      shared.close();
      assert.equal(changed.changes, 1);
      // The plant is real: Deno itself runs it from that folder.
      const planted = await runMain(dir, main);
      assert.match(new TextDecoder().decode(planted.stderr), new RegExp(marker));
      await chownToOther(dir, true);
      await Deno.chown(dir, 0, 0);
      const before = await entries(dir);
      const run = await launchWith(dir);
      assert.doesNotMatch(run.stderr + run.stdout, new RegExp(marker), "the planted bytecode ran");
      await refusedOrUnused(run, dir, before);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "attack: the launcher never walks a caller's whole DENO_DIR at start (an ordinary 755 Deno cache)",
  ignore: !isRoot,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-walk-" });
    try {
      const dir = `${work}/deno`;
      await Deno.mkdir(`${dir}/npm/registry.npmjs.org/some-package/1.0.0`, { recursive: true });
      await Deno.chmod(work, 0o755);
      await Deno.chmod(dir, 0o755);
      const bin = `${work}/bin`;
      const log = `${work}/find.log`;
      const realFind = new TextDecoder().decode(
        (await new Deno.Command("sh", { args: ["-c", "command -v find"], stdout: "piped" })
          .output())
          .stdout,
      ).trim();
      await Deno.mkdir(bin);
      await Deno.writeTextFile(
        `${bin}/find`,
        `#!/bin/sh\nprintf '%s\\n' "$*" >>'${log}'\nexec '${realFind}' "$@"\n`,
        { mode: 0o755 },
      );
      const run = await launchWith(dir, { PATH: `${bin}:${launcherEnv().PATH}` });
      const calls = (await Deno.readTextFile(log).catch(() => "")).split("\n");
      const walks = calls.filter((call) => call.includes(dir) && !call.includes("-maxdepth 0"));
      assert.deepEqual(
        walks,
        [],
        `find walked DENO_DIR (O(cache) per start): ${walks.join(" | ")}`,
      );
      assert.ok(run.code === 0 || /DENO_DIR/.test(run.stderr), run.stderr);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "launcher: a private DENO_DIR (0700, this user's) in /tmp (root's sticky folder) still starts",
  ignore: !isRoot,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "skillgate-r9-denodir-private-" });
    try {
      assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
      const run = await launchWith(dir);
      assert.deepEqual(run, { code: 0, stdout: `skillgate ${VERSION}\n`, stderr: "" });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
