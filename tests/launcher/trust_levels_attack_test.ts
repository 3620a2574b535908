/**
 * The launcher's trust checks at every level (r7 review of issue 13's launcher
 * work, which cuts the programs those checks start): for each folder and file
 * between the checkout and what runs with every permission (the `.tools`
 * deno; `.bundle`, the bundle, its folders, entry modules and chunks,
 * `.bundle/current`), one that anyone may write, its group may write, or
 * another user owns never lets what is there run: neither on the identity
 * shortcut (`.bundle/current` still names the bundle) nor after it.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** The uid and gid of `nobody`: another user. */
const OTHER_USER = 65534;

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

/** How a level is weakened: a mode bit others could write through, or another owner. */
type Weakness = "anyone may write" | "its group may write" | "another user owns";

const WEAKNESSES: readonly Weakness[] = [
  "anyone may write",
  "its group may write",
  "another user owns",
];

/** Weakens `path` (not following a symlink at it) as `weakness` says. */
async function weaken(path: string, weakness: Weakness): Promise<void> {
  if (weakness === "another user owns") {
    await Deno.chown(path, OTHER_USER, OTHER_USER);
    return;
  }
  const mode = (await Deno.stat(path)).mode! & 0o7777;
  await Deno.chmod(path, mode | (weakness === "anyone may write" ? 0o002 : 0o020));
}

/**
 * A folder holding `deno`: the real pinned Deno, except that `deno bundle`
 * fails while R7_NO_BUNDLE_BUILD is set (a refused bundle then falls back to
 * the sources at once instead of being rebuilt). One for the whole file: the
 * Deno's path is part of a bundle's name.
 */
const denoBin = await (async () => {
  const bin = await Deno.makeTempDir({ prefix: "skillgate-trust-levels-bin-" });
  await Deno.writeTextFile(
    `${bin}/deno`,
    `#!/bin/sh\nif [ "$1" = bundle ] && [ -n "\${R7_NO_BUNDLE_BUILD:-}" ]; then exit 1; fi\n` +
      `exec "${REAL_DENO}" "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
})();

globalThis.addEventListener("unload", () => Deno.removeSync(denoBin, { recursive: true }));

/** Runs `--version` through the copy's launcher with the wrapper deno on PATH. */
function launch(root: string, env: Record<string, string> = {}) {
  return runLauncher(`${root}/skillgate`, ["--version"], {
    cwd: root,
    env: { PATH: `${denoBin}:${launcherEnv().PATH}`, ...env },
  });
}

/**
 * A checkout copy without a pinned deno (PATH's wrapper runs), its bundle
 * built and recorded in `.bundle/current`, then that bundle's main.js
 * replaced by one that only says it ran: a bundle whose levels are all this
 * user's alone runs as it is (the identity shortcut does not read it), so a
 * run that prints `planted bundle ran` used the bundle.
 */
async function plantedBundleCheckout(): Promise<
  { root: string; bundle: string } & AsyncDisposable
> {
  const checkout = await checkoutCopy("skillgate-trust-levels-", "checkout");
  const root = checkout.root;
  await Deno.remove(`${root}/.tools/node_modules`);
  const first = await launch(root);
  assert.equal(first.code, 0, first.stderr);
  const hash = await recordedHash(root);
  assert.match(hash, /^[0-9a-f]{64}$/);
  const bundle = `${root}/.bundle/${hash}`;
  await Deno.writeTextFile(`${bundle}/main.js`, 'console.log("planted bundle ran");\n');
  return { root, bundle, [Symbol.asyncDispose]: () => checkout[Symbol.asyncDispose]() };
}

/** The first chunk (by name) of a bundle folder. */
async function firstChunk(bundle: string): Promise<string> {
  const chunks: string[] = [];
  for await (const entry of Deno.readDir(bundle)) {
    if (entry.name.startsWith("chunk-")) chunks.push(entry.name);
  }
  chunks.sort();
  assert.ok(chunks[0] !== undefined, "a bundle with no chunk");
  return `${bundle}/${chunks[0]}`;
}

Deno.test("launcher: a planted main.js in a bundle that is this user's alone runs (the control for the bundle levels below)", async () => {
  await using checkout = await plantedBundleCheckout();
  const run = await launch(checkout.root, { R7_NO_BUNDLE_BUILD: "1" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "planted bundle ran\n");
});

/** Each level of a bundle, from the checkout's `.bundle` down to one chunk. */
const BUNDLE_LEVELS: ReadonlyArray<
  readonly [string, (root: string, bundle: string) => Promise<string>]
> = [
  [".bundle", (root) => Promise.resolve(`${root}/.bundle`)],
  [".bundle/<hash>", (_root, bundle) => Promise.resolve(bundle)],
  ["the bundle's main.js", (_root, bundle) => Promise.resolve(`${bundle}/main.js`)],
  ["the bundle's src/ folder", (_root, bundle) => Promise.resolve(`${bundle}/src`)],
  [
    "the worker's entry module",
    (_root, bundle) => Promise.resolve(`${bundle}/src/worker/entry.js`),
  ],
  ["a chunk", (_root, bundle) => firstChunk(bundle)],
];

for (const [level, pathOf] of BUNDLE_LEVELS) {
  for (const weakness of WEAKNESSES) {
    Deno.test({
      name: `attack: a bundle where ${
        weakness.replace("its group", "the group")
      } ${level} never runs, on the identity shortcut or after it`,
      ignore: weakness === "another user owns" && Deno.uid() !== 0,
      fn: async () => {
        await using checkout = await plantedBundleCheckout();
        await weaken(await pathOf(checkout.root, checkout.bundle), weakness);
        for (const pass of ["shortcut", "after"]) {
          const run = await launch(checkout.root, { R7_NO_BUNDLE_BUILD: "1" });
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.stdout, `skillgate ${VERSION}\n`, `${pass}: the weak bundle ran`);
          // Then past the shortcut: a source's ctime moves (its content does not), so the
          // recorded identities no longer stand and the content hash names the same bundle.
          const source = `${checkout.root}/src/version.ts`;
          const { atime, mtime } = await Deno.stat(source);
          await Deno.utime(source, atime!, mtime!);
        }
      },
    });
  }
}

Deno.test("attack: a chunk replaced by a symlink to the same bytes in a folder anyone may write never runs", async () => {
  await using checkout = await plantedBundleCheckout();
  const chunk = await firstChunk(checkout.bundle);
  const shared = `${checkout.root}/../shared`;
  await Deno.mkdir(shared, { mode: 0o777 });
  await Deno.chmod(shared, 0o777);
  await Deno.rename(chunk, `${shared}/chunk.js`);
  await Deno.symlink(`${shared}/chunk.js`, chunk);
  const run = await launch(checkout.root, { R7_NO_BUNDLE_BUILD: "1" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`, "a bundle with a symlinked chunk ran");
});

Deno.test("attack: a .bundle/<hash> that is a symlink to the bundle moved into a folder anyone may write never runs", async () => {
  await using checkout = await plantedBundleCheckout();
  const shared = `${checkout.root}/../shared`;
  await Deno.mkdir(shared);
  await Deno.chmod(shared, 0o777);
  // Every file in it is still ours and go-w; only the folder holding it is not the checkout's.
  await Deno.rename(checkout.bundle, `${shared}/bundle`);
  await Deno.symlink(`${shared}/bundle`, checkout.bundle);
  for (const pass of ["shortcut", "after"]) {
    const run = await launch(checkout.root, { R7_NO_BUNDLE_BUILD: "1" });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `skillgate ${VERSION}\n`, `${pass}: a symlinked bundle folder ran`);
    const source = `${checkout.root}/src/version.ts`;
    const { atime, mtime } = await Deno.stat(source);
    await Deno.utime(source, atime!, mtime!);
  }
});

for (const weakness of WEAKNESSES) {
  Deno.test({
    name: `attack: a .bundle/current that ${
      weakness.replace("its group", "the group")
    } never makes another bundle run`,
    ignore: weakness === "another user owns" && Deno.uid() !== 0,
    fn: async () => {
      await using checkout = await plantedBundleCheckout();
      const root = checkout.root;
      // The true bundle is put back; an older bundle (ours, of other sources) is planted.
      const older = `${root}/.bundle/${"0".repeat(64)}`;
      await Deno.rename(checkout.bundle, older);
      const rebuilt = await launch(root);
      assert.equal(rebuilt.code, 0, rebuilt.stderr);
      assert.equal(rebuilt.stdout, `skillgate ${VERSION}\n`);
      // Someone who may write `current` points it at the older bundle, identities kept.
      const record = await Deno.readTextFile(`${root}/.bundle/current`);
      await Deno.writeTextFile(
        `${root}/.bundle/current`,
        record.replace(/^record_hash=[0-9a-f]{64}$/m, `record_hash=${"0".repeat(64)}`),
      );
      await weaken(`${root}/.bundle/current`, weakness);
      const run = await launch(root, { R7_NO_BUNDLE_BUILD: "1" });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `skillgate ${VERSION}\n`, "the bundle a weak current named ran");
    },
  });
}

/** A checkout copy whose `.tools` holds a pinned deno that leaves a marker, then runs the real one. */
async function toolsDenoCheckout(): Promise<
  { root: string; ran: () => Promise<boolean> } & AsyncDisposable
> {
  const checkout = await checkoutCopy("skillgate-trust-levels-tools-", "checkout");
  const root = checkout.root;
  await Deno.remove(`${root}/.tools/node_modules`);
  const dir = `${root}/.tools/node_modules/deno`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/package.json`,
    `{\n  "name": "deno",\n  "version": "2.9.6"\n}\n`,
  );
  const marker = `${root}/../tools deno ran`;
  await Deno.writeTextFile(`${dir}/deno`, `#!/bin/sh\n: >"${marker}"\nexec "${REAL_DENO}" "$@"\n`, {
    mode: 0o755,
  });
  return {
    root,
    ran: () => Deno.lstat(marker).then(() => true, () => false),
    [Symbol.asyncDispose]: () => checkout[Symbol.asyncDispose](),
  };
}

Deno.test("launcher: a pinned .tools deno that is this user's alone runs (the control for the .tools levels below)", async () => {
  await using checkout = await toolsDenoCheckout();
  const run = await launch(checkout.root, { SKILLGATE_NO_BUNDLE: "1" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await checkout.ran(), true);
});

const TOOLS_LEVELS = [
  ".tools",
  ".tools/node_modules",
  ".tools/node_modules/deno",
  ".tools/node_modules/deno/deno",
];

for (const level of TOOLS_LEVELS) {
  for (const weakness of WEAKNESSES) {
    Deno.test({
      name: `attack: a pinned deno where ${
        weakness.replace("its group", "the group")
      } ${level} never runs`,
      ignore: weakness === "another user owns" && Deno.uid() !== 0,
      fn: async () => {
        await using checkout = await toolsDenoCheckout();
        await weaken(`${checkout.root}/${level}`, weakness);
        // PATH's deno (the wrapper) is there: it runs instead.
        const run = await launch(checkout.root, { SKILLGATE_NO_BUNDLE: "1" });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, `skillgate ${VERSION}\n`);
        assert.equal(
          await checkout.ran(),
          false,
          `the .tools deno ran though ${weakness} ${level}`,
        );
      },
    });
  }
}
