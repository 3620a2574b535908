/**
 * A copy of this checkout's sources in a temporary folder, for the launcher's
 * bundle tests: the launcher, main.ts, deno.json, deno.lock and src/, with
 * node_modules and .tools/node_modules linked to this checkout's (run once
 * here first, so they are current).
 *
 * @module
 */

import assert from "node:assert/strict";
import { LAUNCHER, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";

/** What a checkout needs to launch and bundle (node_modules and .tools/ linked to this one's). */
const CHECKOUT_FILES = ["skillgate", "main.ts", "deno.json", "deno.lock", "src"];

/**
 * Copies the checkout's sources (no bundle yet) into `<temp>/<folderName>`.
 *
 * @param prefix The temporary parent folder's name prefix.
 * @param folderName The copy's folder name inside it (may hold a space).
 * @returns The copy's root; disposing it removes the temporary parent.
 * @throws AssertionError when the launcher's set-up run or the copy fails.
 *
 * Needs read and write of the temporary folder, read of this checkout, and
 * run of `sh`/`tar` and the launcher.
 */
export async function checkoutCopy(
  prefix: string,
  folderName: string,
): Promise<{ root: string } & AsyncDisposable> {
  // A launcher run here first: this checkout's dependencies are current, so the copy's are too.
  const setup = await runLauncher(LAUNCHER, ["--version"], { cwd: REPO_ROOT });
  assert.equal(setup.code, 0, setup.stderr);
  const parent = await Deno.makeTempDir({ prefix });
  const root = `${parent}/${folderName}`;
  await Deno.mkdir(`${root}/.tools`, { recursive: true });
  const copy = await new Deno.Command("sh", {
    args: ["-c", 'from=$0; into=$1; shift; tar -C "$from" -cf - "$@" | tar -C "$into" -xf -']
      .concat([REPO_ROOT, root, ...CHECKOUT_FILES]),
    stderr: "piped",
  }).output();
  assert.ok(copy.success, new TextDecoder().decode(copy.stderr));
  await Deno.symlink(`${REPO_ROOT}node_modules`, `${root}/node_modules`);
  await Deno.symlink(`${REPO_ROOT}.tools/node_modules`, `${root}/.tools/node_modules`);
  await seedBuildCache(root);
  return { root, [Symbol.asyncDispose]: () => Deno.remove(parent, { recursive: true }) };
}

/**
 * Gives a copy's private Deno cache for bundle builds (`.bundle/deno`, 0700)
 * a copy of this checkout's esbuild (`dl/`), which `deno bundle` otherwise
 * downloads (~10 MB, ~4 s) into each new checkout's cache. Copied, never
 * linked, so nothing a test does reaches this checkout's.
 *
 * @param root The copy's root.
 * @throws AssertionError when the copy fails.
 *
 * Needs read of this checkout's `.bundle/deno`, write of the copy, run of `cp`.
 */
async function seedBuildCache(root: string): Promise<void> {
  const from = `${REPO_ROOT}.bundle/deno/dl`;
  if (!(await Deno.lstat(from).then((info) => info.isDirectory, () => false))) return;
  await Deno.mkdir(`${root}/.bundle/deno`, { recursive: true, mode: 0o700 });
  await Deno.chmod(`${root}/.bundle`, 0o755);
  await Deno.chmod(`${root}/.bundle/deno`, 0o700);
  const copy = await new Deno.Command("cp", {
    args: ["-a", from, `${root}/.bundle/deno/`],
    stderr: "piped",
  }).output();
  assert.ok(copy.success, new TextDecoder().decode(copy.stderr));
}

/**
 * The bundle a checkout's `.bundle/current` record names (its first line,
 * `record_hash=<sha256 hex>`).
 *
 * @param root The checkout's root.
 * @returns The 64-hex-digit hash; empty when the record names none.
 * @throws NotFound when there is no record.
 *
 * Needs read of the checkout's `.bundle/current`.
 */
export async function recordedHash(root: string): Promise<string> {
  const record = await Deno.readTextFile(`${root}/.bundle/current`);
  return /^record_hash=([0-9a-f]{64})$/m.exec(record)?.[1] ?? "";
}

/**
 * Gives a checkout copy a node_modules of its own in place of the link to
 * this checkout's: a real folder holding copies of the top-level entries and a
 * real `.deno` (deno's own files copied) whose package folders link to this
 * checkout's, but for the packages named, which are copied whole (so a test may change them).
 *
 * @param root The copy's root (from {@link checkoutCopy}).
 * @param ownPackages `.deno` folder names to copy, e.g. `["jsonc-parser@3.3.1"]`.
 * @returns The copy's node_modules path.
 * @throws AssertionError when the copy fails.
 *
 * Needs read and write of the copy, read of this checkout, run of `sh`/`cp`.
 */
export async function ownNodeModules(
  root: string,
  ownPackages: readonly string[],
): Promise<string> {
  const into = `${root}/node_modules`;
  await Deno.remove(into);
  const copy = await new Deno.Command("sh", {
    args: [
      "-c",
      'from=$0; into=$1; shift; mkdir "$into" "$into/.deno" && cd "$from" && ' +
      'for e in .[!.]* *; do [ "$e" = .deno ] || cp -a "$e" "$into/"; done && cd .deno && ' +
      // Package folders (name@version) linked; deno's own files and hoisted links copied.
      'for p in .[!.]* *; do case $p in *@*) ln -s "$from/.deno/$p" "$into/.deno/$p" ;; ' +
      '*) cp -a "$p" "$into/.deno/" ;; esac; done && ' +
      'for p in "$@"; do rm "$into/.deno/$p" && cp -a "$p" "$into/.deno/$p"; done',
      `${REPO_ROOT}node_modules`,
      into,
      ...ownPackages,
    ],
    stderr: "piped",
  }).output();
  assert.ok(copy.success, new TextDecoder().decode(copy.stderr));
  return into;
}

/**
 * What under the given paths its group or others may write (symlinks aside:
 * their own mode is always 777), as the launcher's ownership rule sees it:
 * Deno's cache folders in `.bundle` (`deno`, `<hash>/deno`) are not walked
 * (Deno writes them with the program's umask) but must be closed: one that
 * group or others may read, write or enter is listed.
 *
 * @param paths Files or folders; each walked whole (`find`, not following links).
 * @returns The paths find printed, sorted; empty when none.
 * @throws AssertionError when find fails (a path missing or unreadable).
 *
 * Needs read of the paths and run of `find`.
 */
export async function othersMayWrite(paths: readonly string[]): Promise<string[]> {
  const found = await new Deno.Command("find", {
    args: [
      ...paths,
      ...["(", "-path", "*/.bundle/deno", "-o", "-path", "*/.bundle/*/deno", ")", "-prune"],
      ...["-perm", "/077", "-print", "-o"],
      ...["!", "-type", "l", "(", "-perm", "-020", "-o", "-perm", "-002", ")", "-print"],
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.ok(found.success, decoder.decode(found.stderr));
  return decoder.decode(found.stdout).split("\n").filter((line) => line !== "").sort();
}
