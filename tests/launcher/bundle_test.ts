/**
 * The launcher's bundle (issue 13, start-up): `./skillgate` runs `deno bundle`'s
 * output from `.bundle/<hash>/`, rebuilt whenever the sources change (even
 * an edit that keeps size and modification time), built once when several
 * first runs start together, and serving a real client end to end through
 * the worker wall.
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { LAUNCHER, launcherEnv, runLauncher } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";
import { checkoutCopy as copyCheckout, recordedHash } from "./_checkout_copy.ts";

/** A copy of this checkout (sources only) with no bundle yet, in a folder holding a space. */
function checkoutCopy(): Promise<{ root: string } & AsyncDisposable> {
  return copyCheckout("skillgate-bundle-", "check out");
}

/** The bundle folders (by hash) in a checkout, without `current` or temporary entries. */
async function bundleFolders(root: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${root}/.bundle`)) names.push(entry.name);
  return names.filter((name) => /^[0-9a-f]{64}$/.test(name)).sort();
}

/** The bundle `.bundle/current` names, checked to hold a main.js. */
async function currentBundle(root: string): Promise<string> {
  const hash = await recordedHash(root);
  assert.ok(hash !== undefined && /^[0-9a-f]{64}$/.test(hash));
  assert.ok((await Deno.stat(`${root}/.bundle/${hash}/main.js`)).isFile);
  return hash;
}

Deno.test("launcher: a stale bundle is rebuilt before it runs, even after an edit that keeps size and mtime", async () => {
  await using checkout = await checkoutCopy();
  const launcher = `${checkout.root}/skillgate`;
  const first = await runLauncher(launcher, ["--version"], { cwd: checkout.root });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, `skillgate ${VERSION}\n`);
  assert.match(first.stderr, /bundling the program/);
  const built = await currentBundle(checkout.root);
  // No chunk loads node:module at start-up (the launcher makes `require` lazy).
  for await (const entry of Deno.readDir(`${checkout.root}/.bundle/${built}`)) {
    if (!entry.name.endsWith(".js")) continue;
    const text = await Deno.readTextFile(`${checkout.root}/.bundle/${built}/${entry.name}`);
    assert.doesNotMatch(text, /^import [^\n]* from "node:module";$/m, entry.name);
  }
  // Unchanged sources: the same bundle, nothing built.
  const again = await runLauncher(launcher, ["--version"], { cwd: checkout.root });
  assert.equal(again.stderr, "");
  assert.equal(await currentBundle(checkout.root), built);
  // Same size, mtime put back: only the content (and the ctime no one can set) changed.
  const file = `${checkout.root}/src/version.ts`;
  const before = await Deno.stat(file);
  const text = await Deno.readTextFile(file);
  const edited = VERSION.slice(0, -1) + (VERSION.endsWith("9") ? "8" : "9");
  await Deno.writeTextFile(file, text.replace(`"${VERSION}"`, `"${edited}"`));
  await Deno.utime(file, before.atime!, before.mtime!);
  assert.equal((await Deno.stat(file)).size, before.size);
  const rebuilt = await runLauncher(launcher, ["--version"], { cwd: checkout.root });
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  assert.equal(rebuilt.stdout, `skillgate ${edited}\n`);
  assert.match(rebuilt.stderr, /bundling the program/);
  assert.notEqual(await currentBundle(checkout.root), built);
  // Back to the first content: the first bundle is current again, not rebuilt.
  await Deno.writeTextFile(file, text);
  const back = await runLauncher(launcher, ["--version"], { cwd: checkout.root });
  assert.equal(back.stdout, `skillgate ${VERSION}\n`);
  assert.equal(back.stderr, "");
  assert.equal(await currentBundle(checkout.root), built);
});

Deno.test("launcher: concurrent first runs all start, and one bundle is built", async () => {
  await using checkout = await checkoutCopy();
  const launcher = `${checkout.root}/skillgate`;
  const runs = await Promise.all(
    [1, 2, 3].map(() => runLauncher(launcher, ["--version"], { cwd: checkout.root })),
  );
  for (const run of runs) {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  }
  assert.equal(runs.filter((run) => /bundling the program/.test(run.stderr)).length, 1);
  assert.deepEqual(await bundleFolders(checkout.root), [await currentBundle(checkout.root)]);
  const left: string[] = [];
  for await (const entry of Deno.readDir(`${checkout.root}/.bundle`)) left.push(entry.name);
  // (deno: Deno's private cache for bundle builds.)
  assert.deepEqual(left.sort(), ["current", "deno", await currentBundle(checkout.root)].sort());
});

Deno.test("launcher: a checkout where no bundle can be written runs from the sources, with no Deno cache rather than a shared one", async () => {
  await using checkout = await checkoutCopy();
  await Deno.remove(`${checkout.root}/.bundle`, { recursive: true }).catch(() => {});
  await Deno.writeTextFile(`${checkout.root}/.bundle`, "not a folder\n");
  const home = `${checkout.root}/../home`;
  await Deno.mkdir(home);
  const run = await runLauncher(`${checkout.root}/skillgate`, ["--version"], {
    cwd: checkout.root,
    env: { HOME: home, DENO_DIR: "" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.match(run.stderr, /no private folder for Deno's cache/);
  // Deno's default cache (under HOME) was neither made nor used.
  assert.deepEqual([...Deno.readDirSync(home)], []);
});

Deno.test("launcher: the bundled program serves a real client through the worker wall (lazy chunks, a symlink out of the root refused)", async () => {
  const parent = await Deno.makeTempDir({ prefix: "skillgate-bundled-" });
  try {
    const outside = `${parent}/outside.txt`;
    await Deno.writeTextFile(outside, "secret outside the root\n");
    const skill = `${parent}/skills/hello`;
    await Deno.mkdir(`${skill}/references`, { recursive: true });
    await Deno.writeTextFile(
      `${skill}/SKILL.md`,
      "---\nname: hello\ndescription: Says hello. Use when greeting someone.\n---\nSay hello.\n",
    );
    await Deno.writeTextFile(`${skill}/references/notes.md`, "Greeting notes.\n");
    await Deno.symlink(outside, `${skill}/references/leak.md`);
    const transport = new StdioClientTransport({
      command: LAUNCHER,
      args: ["serve", `${parent}/skills`],
      cwd: parent,
      env: launcherEnv({ XDG_CACHE_HOME: `${parent}/cache` }),
      stderr: "pipe",
    });
    const client = new Client({ name: "bundle-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      // The process the client started runs the bundle, not the sources.
      const cmdline = await Deno.readTextFile(`/proc/${transport.pid}/cmdline`);
      assert.match(cmdline, /\/\.bundle\/[0-9a-f]{64}\/main\.js\0/);
      const listed = await client.callTool({ name: "skill_list", arguments: {} });
      assert.match(JSON.stringify(listed.structuredContent), /"name":"hello"/);
      // skill_search loads its modules lazily: a chunk of the bundle, inside the worker.
      const found = await client.callTool({
        name: "skill_search",
        arguments: { query: "greeting" },
      });
      assert.equal(found.isError, undefined, JSON.stringify(found));
      assert.match(JSON.stringify(found.structuredContent), /hello/);
      const notes = await client.readResource({ uri: "skill://hello/references/notes.md" });
      assert.match(JSON.stringify(notes.contents), /Greeting notes/);
      const leak = await client.readResource({ uri: "skill://hello/references/leak.md" }).then(
        (answer) => JSON.stringify(answer),
        (error: unknown) => String(error),
      );
      assert.doesNotMatch(leak, /secret outside the root/);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
