/**
 * Two first runs at once on a fresh clone (no .tools/, no node_modules/), in a
 * folder whose path holds a space, with a stale install lock left by a
 * crashed run: both install-or-wait and succeed, and stdout stays the
 * program's. Slow (it installs Deno from npm and the locked dependencies);
 * skipped with one stderr line when the npm registry is unreachable.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { othersMayWrite } from "./_checkout_copy.ts";

/** Whether `npm ping` reaches the registry (the one thing this test needs from outside). */
async function npmReachable(): Promise<boolean> {
  try {
    const ping = await new Deno.Command("npm", {
      args: ["ping", "--fetch-timeout=20000", "--fetch-retries=1"],
      clearEnv: true,
      env: launcherEnv(),
      stdout: "null",
      stderr: "null",
    }).output();
    return ping.success;
  } catch {
    return false; // no npm at all
  }
}

const canInstall = await npmReachable();
if (!canInstall) {
  console.error("skipping the fresh-clone launcher test: the npm registry is unreachable");
}

/** Copies the working tree (what a clone holds) without .tools/, node_modules/ or .git. */
async function freshClone(into: string): Promise<void> {
  await Deno.mkdir(into, { recursive: true });
  const exclude = [".tools", "node_modules", ".bundle", ".git", "dist", "coverage"].map((name) =>
    `--exclude=./${name}`
  );
  const copy = await new Deno.Command("sh", {
    args: [
      "-c",
      'into=$0; from=$1; shift; tar -C "$from" "$@" -cf - . | tar -C "$into" -xf -',
      into,
      REPO_ROOT,
      ...exclude,
    ],
    stderr: "piped",
  }).output();
  assert.ok(copy.success, new TextDecoder().decode(copy.stderr));
}

/** A pid that no process has any more (a process that just ended). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

function countOf(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, "gm"))].length;
}

Deno.test({
  name:
    "launcher: two first runs at once on a fresh clone under a path with a space both succeed, past a stale lock",
  ignore: !canInstall,
  fn: async () => {
    const parent = await Deno.makeTempDir({ prefix: "skillgate-fresh-" });
    try {
      const clone = `${parent}/fresh clone/skillgate`;
      await freshClone(clone);
      const stale = await deadPid();
      await Deno.mkdir(`${clone}/.tools/.install-lock`, { recursive: true });
      await Deno.writeTextFile(`${clone}/.tools/.install-lock/pid`, `${stale}\n`);

      // A umask 002 user (newcomer review): what is installed must still pass the launcher's
      // rule that group and others may not write what it runs.
      const runs = await Promise.all([
        runLauncher(`${clone}/skillgate`, ["--version"], { cwd: parent, umask: "002" }),
        runLauncher(`${clone}/skillgate`, ["--version"], { cwd: parent, umask: "002" }),
      ]);
      const stderr = runs.map((run) => run.stderr).join("");
      for (const run of runs) {
        assert.equal(run.code, 0, stderr);
        assert.equal(run.stdout, `skillgate ${VERSION}\n`, "stdout carries only the program's");
      }
      // The lock let exactly one run install; the other waited, then found it done.
      assert.equal(countOf(stderr, /^skillgate: installing deno 2\.9\.6 /), 1, stderr);
      assert.equal(countOf(stderr, /^skillgate: installing the locked dependencies/), 1, stderr);
      assert.equal(countOf(stderr, new RegExp(`stale install lock left by process ${stale}$`)), 1);
      const leftovers = [...Deno.readDirSync(`${clone}/.tools`)].map((entry) => entry.name);
      assert.deepEqual(leftovers, ["node_modules"], "no lock or staging folder is left behind");
      const paths = [".tools", "node_modules", ".bundle"].map((name) => `${clone}/${name}`);
      assert.deepEqual(await othersMayWrite(paths), [], "installed group- or world-writable");

      // Installed once: the next run is silent on stderr and Makefile set-up finds the same Deno.
      const again = await runLauncher(`${clone}/skillgate`, ["--version"], { cwd: parent });
      assert.deepEqual(again, { code: 0, stdout: `skillgate ${VERSION}\n`, stderr: "" });
      const setup = await runLauncher(`${clone}/skillgate`, [], {
        cwd: parent,
        env: { SKILLGATE_SETUP_ONLY: "1" },
      });
      assert.equal(setup.stdout, `${clone}/.tools/node_modules/deno/deno\n`);
    } finally {
      await Deno.remove(parent, { recursive: true });
    }
  },
});
