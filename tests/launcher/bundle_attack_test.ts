/**
 * Attacks on the launcher's bundle (issue 13 review): the trusted part runs
 * `.bundle/<hash>/main.js` with every permission, so a bundle someone else
 * could write, or a bundle of other sources, must never run.
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** The uid and gid of `nobody`: another user, who must not be able to plant a bundle. */
const OTHER_USER = 65534;

/** A copy of this checkout (sources only) whose bundle is built, and its hash. */
async function builtCheckout(): Promise<{ root: string; hash: string } & AsyncDisposable> {
  const checkout = await checkoutCopy("skillgate-bundle-attack-", "checkout");
  const root = checkout.root;
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(first.code, 0, first.stderr);
  const hash = await recordedHash(root);
  assert.match(hash, /^[0-9a-f]{64}$/);
  return { root, hash, [Symbol.asyncDispose]: () => checkout[Symbol.asyncDispose]() };
}

/** Writes a bundle folder at `dir` whose main.js only says it ran, owned by `uid` when given. */
async function plantBundle(dir: string, uid?: number): Promise<void> {
  await Deno.mkdir(`${dir}/src/worker`, { recursive: true });
  await Deno.writeTextFile(`${dir}/main.js`, 'console.log("planted bundle ran");\n');
  await Deno.writeTextFile(`${dir}/src/worker/entry.js`, "\n");
  if (uid === undefined) return;
  for (const path of [dir, `${dir}/src`, `${dir}/src/worker`, `${dir}/src/worker/entry.js`]) {
    await Deno.chown(path, uid, uid);
  }
  await Deno.chown(`${dir}/main.js`, uid, uid);
}

/** Runs `--version` through the checkout's launcher and checks the real program answered. */
async function assertRealProgramRuns(root: string): Promise<string> {
  const run = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.doesNotMatch(run.stdout, /planted bundle ran/);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  return run.stderr;
}

Deno.test("attack: a bundle another user swapped into a world-writable .bundle never runs", async () => {
  await using checkout = await builtCheckout();
  const bundles = `${checkout.root}/.bundle`;
  await Deno.chmod(bundles, 0o777);
  // Anyone may rename in a world-writable folder (no sticky bit): ours goes, theirs comes.
  await Deno.rename(`${bundles}/${checkout.hash}`, `${bundles}/moved-away`);
  await plantBundle(`${bundles}/${checkout.hash}`, OTHER_USER);
  const stderr = await assertRealProgramRuns(checkout.root);
  assert.match(stderr, /\.bundle/);
});

Deno.test("attack: a bundle folder owned by another user, left in our own .bundle, never runs", async () => {
  await using checkout = await builtCheckout();
  const bundles = `${checkout.root}/.bundle`;
  await Deno.remove(`${bundles}/${checkout.hash}`, { recursive: true });
  await plantBundle(`${bundles}/${checkout.hash}`, OTHER_USER);
  await assertRealProgramRuns(checkout.root);
  // Rebuilt in its place: ours again, and used.
  assert.equal((await Deno.stat(`${bundles}/${checkout.hash}/main.js`)).uid, Deno.uid());
  assert.equal(await assertRealProgramRuns(checkout.root), "");
});

Deno.test("attack: a .bundle symlinked to a folder others may write never runs what is there", async () => {
  await using checkout = await builtCheckout();
  const bundles = `${checkout.root}/.bundle`;
  const shared = `${checkout.root}/../shared-bundles`;
  await Deno.mkdir(shared);
  await Deno.chmod(shared, 0o777);
  await Deno.copyFile(`${bundles}/current`, `${shared}/current`);
  await plantBundle(`${shared}/${checkout.hash}`, OTHER_USER);
  await Deno.remove(bundles, { recursive: true });
  await Deno.symlink(shared, bundles);
  await assertRealProgramRuns(checkout.root);
});

Deno.test("attack: a group-writable bundle file (another user could edit it) never runs", async () => {
  await using checkout = await builtCheckout();
  const main = `${checkout.root}/.bundle/${checkout.hash}/main.js`;
  await Deno.writeTextFile(main, 'console.log("planted bundle ran");\n');
  await Deno.chmod(main, 0o664);
  await assertRealProgramRuns(checkout.root);
});

Deno.test("attack: a later build's clean-up never removes the bundle a running server still starts isolates from", async () => {
  await using checkout = await builtCheckout();
  const parent = `${checkout.root}/..`;
  const skill = `${parent}/skills/token-demo`;
  await Deno.mkdir(`${skill}/scripts`, { recursive: true });
  await Deno.mkdir(`${parent}/data`);
  await Deno.writeTextFile(
    `${skill}/SKILL.md`,
    "---\nname: token-demo\ndescription: Prints its token. Use in tests.\nmcp-host:\n" +
      "  version: 1\n  run:\n    - script: scripts/token.sh\n      interpreter: sh\n" +
      "      env: [DEMO_TOKEN]\n---\n# Token demo\n",
  );
  await Deno.writeTextFile(`${skill}/scripts/token.sh`, 'printf "token=%s" "$DEMO_TOKEN"\n');
  const transport = new StdioClientTransport({
    command: `${checkout.root}/skillgate`,
    args: ["serve", `${parent}/skills`],
    cwd: parent,
    env: launcherEnv({
      XDG_CACHE_HOME: `${parent}/cache`,
      MCP_DATA_DIR: `${parent}/data`,
      MCP_CONFIRM_MODE: "auto",
      DEMO_TOKEN: "token-value",
      MCP_SKILL_RUN: JSON.stringify([
        { skill: "token-demo", script: "scripts/token.sh", env: ["DEMO_TOKEN"] },
      ]),
    }),
    stderr: "pipe",
  });
  const client = new Client({ name: "bundle-attack-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const cmdline = await Deno.readTextFile(`/proc/${transport.pid}/cmdline`);
    assert.ok(cmdline.includes(`/.bundle/${checkout.hash}/main.js\0`), cmdline);
    // The server was started (and its bundle built) more than a week ago; the sources change.
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await Deno.utime(`${checkout.root}/.bundle/${checkout.hash}`, weekAgo, weekAgo);
    await Deno.writeTextFile(`${checkout.root}/src/added_later.ts`, "export const later = 1;\n");
    const next = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
      cwd: checkout.root,
    });
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, /bundling the program/);
    // The declared value is released through an isolate started now, from the server's bundle.
    const ran = await client.callTool({
      name: "skill_run",
      arguments: { name: "token-demo", script: "scripts/token.sh", args: [] },
    });
    assert.match(JSON.stringify(ran.structuredContent ?? ran.content), /token=token-value/);
  } finally {
    await client.close();
  }
});

Deno.test("attack: bytes moved from the end of one source file to the start of the next still give a new bundle", async () => {
  await using checkout = await builtCheckout();
  const version = `${checkout.root}/src/version.ts`;
  const next = `${checkout.root}/src/version_note.ts`; // the file right after it, sorted
  const head = `import "./version_note.ts";\nexport const VERSION = "${VERSION}";\n//`;
  // The same bytes in the same files' order, only the boundary between the two files moved.
  await Deno.writeTextFile(version, head);
  await Deno.writeTextFile(next, 'console.log("the note ran");\n');
  const before = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
  });
  assert.equal(before.code, 0, before.stderr);
  assert.equal(before.stdout, `the note ran\nskillgate ${VERSION}\n`);
  await Deno.writeTextFile(version, `${head}console.log("the note ran");\n`);
  await Deno.writeTextFile(next, "");
  const after = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
  });
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, `skillgate ${VERSION}\n`);
});

Deno.test("attack: another Deno put at the same path gets its own bundle, as the launcher's header says", async () => {
  await using checkout = await builtCheckout();
  // Without a pinned deno in .tools (which the launcher would prefer), PATH's deno runs.
  await Deno.remove(`${checkout.root}/.tools/node_modules`);
  const bin = `${checkout.root}/../bin`;
  await Deno.mkdir(bin);
  const realDeno = `${REPO_ROOT}.tools/node_modules/deno/deno`;
  /** A `deno` on PATH that says it is `version`, and is the pinned Deno otherwise. */
  const installDeno = async (version: string) => {
    await Deno.writeTextFile(
      `${bin}/deno.new`,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo "deno ${version} (stable)"; exit 0; fi\n` +
        `exec "${realDeno}" "$@"\n`,
    );
    await Deno.chmod(`${bin}/deno.new`, 0o755);
    await Deno.rename(`${bin}/deno.new`, `${bin}/deno`); // as an upgrade replaces it
  };
  const run = () =>
    runLauncher(`${checkout.root}/skillgate`, ["--version"], {
      cwd: checkout.root,
      env: { PATH: `${bin}:${launcherEnv().PATH}` },
    });
  await installDeno("2.9.6");
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /bundling the program/);
  assert.equal((await run()).stderr, "");
  await installDeno("2.9.7");
  const upgraded = await run();
  assert.equal(upgraded.code, 0, upgraded.stderr);
  assert.equal(upgraded.stdout, `skillgate ${VERSION}\n`);
  assert.match(upgraded.stderr, /bundling the program/);
});

Deno.test("attack: what a build killed midway leaves never runs, and the next build removes it", async () => {
  await using checkout = await builtCheckout();
  const bundles = `${checkout.root}/.bundle`;
  // A build killed (SIGKILL, power loss) before its rename: a partial folder and its log.
  await plantBundle(`${bundles}/.staging-4242424`);
  await Deno.writeTextFile(`${bundles}/.log-4242424`, "half a log\n");
  await Deno.writeTextFile(`${checkout.root}/src/added_later.ts`, "export const later = 1;\n");
  const stderr = await assertRealProgramRuns(checkout.root);
  assert.match(stderr, /bundling the program/);
  const left: string[] = [];
  for await (const entry of Deno.readDir(bundles)) left.push(entry.name);
  assert.deepEqual(left.filter((name) => name.startsWith(".")), []);
});

Deno.test("attack: a clean-up killed midway never leaves a half-removed bundle that runs when its sources come back", async () => {
  await using checkout = await builtCheckout();
  const bundles = `${checkout.root}/.bundle`;
  const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
  await Deno.utime(`${bundles}/${checkout.hash}`, weekAgo, weekAgo);
  // An `rm` killed after removing one file of the old bundle (the power goes, a SIGKILL).
  const bin = `${checkout.root}/../bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/rm`,
    `#!/bin/sh\nfor arg in "$@"; do case $arg in *${checkout.hash}) ` +
      `/bin/rm -f "$(find "$arg" -name 'chunk-*.js' | sort | head -n 1)"; exit 137 ;; ` +
      `esac; done\nexec /bin/rm "$@"\n`,
  );
  await Deno.chmod(`${bin}/rm`, 0o755);
  const added = `${checkout.root}/src/added_later.ts`;
  await Deno.writeTextFile(added, "export const later = 1;\n");
  const update = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: { PATH: `${bin}:${launcherEnv().PATH}` },
  });
  assert.equal(update.code, 0, update.stderr);
  // The sources come back (a branch switched back): their bundle must be whole, or rebuilt.
  await Deno.remove(added);
  await assertRealProgramRuns(checkout.root);
});
