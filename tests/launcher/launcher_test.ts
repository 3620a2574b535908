/**
 * The `./skillgate` launcher as a person or a client uses it: from another
 * folder, through a symlink, from a path holding a space; arguments, working
 * directory, exit status and stdout are the program's own.
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { LAUNCHER, launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { checkoutCopy } from "./_checkout_copy.ts";
import { VERSION } from "../../src/version.ts";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";

/** A caller's folder (with a space in its name) holding a broken skill and a good one. */
async function callerFolder(): Promise<{ dir: string } & AsyncDisposable> {
  const parent = await Deno.makeTempDir({ prefix: "skillgate-launcher-" });
  const dir = `${parent}/caller folder`;
  await Deno.mkdir(`${dir}/broken-skill`, { recursive: true });
  await Deno.writeTextFile(`${dir}/broken-skill/SKILL.md`, "---\nname: broken-skill\n---\nBody\n");
  await Deno.mkdir(`${dir}/skills/hello`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/skills/hello/SKILL.md`,
    "---\nname: hello\ndescription: Says hello. Use when greeting.\n---\nSay hello.\n",
  );
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(parent, { recursive: true }),
  };
}

Deno.test("launcher: validate ./broken-skill from another folder resolves there and exits 1 with the findings", async () => {
  await using caller = await callerFolder();
  const run = await runLauncher(LAUNCHER, ["validate", "./broken-skill"], { cwd: caller.dir });
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stdout,
    /^broken-skill\/SKILL\.md:\d+:\d+: error invalid-frontmatter: description is missing/m,
  );
  assert.match(run.stdout, /^FAILED: 1 path checked/m);
  assert.equal(run.stderr, "");
});

Deno.test("launcher: validate of a good skill exits 0, and --bogus exits 2 with nothing on stdout", async () => {
  await using caller = await callerFolder();
  const good = await runLauncher(LAUNCHER, ["validate", "skills/hello"], { cwd: caller.dir });
  assert.equal(good.code, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /^OK/m);
  const bogus = await runLauncher(LAUNCHER, ["--bogus"], { cwd: caller.dir });
  assert.equal(bogus.code, 2);
  assert.equal(bogus.stdout, "");
  assert.match(bogus.stderr, /^skillgate: Unknown option "--bogus"/);
});

Deno.test("launcher: through a symlink in a folder holding a space, arguments pass through unchanged", async () => {
  await using caller = await callerFolder();
  const link = `${caller.dir}/bin dir/skillgate`;
  await Deno.mkdir(`${caller.dir}/bin dir`);
  await Deno.symlink(LAUNCHER, link);
  const version = await runLauncher(link, ["--version"], { cwd: caller.dir });
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout, `skillgate ${VERSION}\n`);
  // One argument holding spaces, quotes and a glob stays one argument: a root that does not
  // exist, named back exactly in the message (exit 2).
  const odd = "no such 'root' * here";
  const missing = await runLauncher(link, ["list", odd], { cwd: caller.dir });
  assert.equal(missing.code, 2);
  assert.ok(missing.stderr.includes(`${caller.dir}/${odd}`), missing.stderr);
});

Deno.test("launcher: an MCP session over it keeps stdout protocol-only and serves a relative root from the caller's folder", async () => {
  await using caller = await callerFolder();
  const transport = new StdioClientTransport({
    command: LAUNCHER,
    args: ["serve", "./skills"],
    cwd: caller.dir,
    env: launcherEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "launcher-test", version: "1.0.0" });
  // Any stray byte on stdout would break the client's framing and fail connect or the call.
  await client.connect(transport);
  try {
    const listed = await client.callTool({ name: "skill_list", arguments: {} });
    assert.equal(listed.isError, undefined, JSON.stringify(listed));
    assert.match(JSON.stringify(listed.structuredContent), /"name":"hello"/);
  } finally {
    await client.close();
  }
  const lines = stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, stderr);
  assert.ok(
    lines[0]!.includes(`serving 1 skill over stdio from ${caller.dir}/skills (argument)`),
    stderr,
  );
});

Deno.test("launcher: make run goes through the launcher and keeps stdout protocol-only", async () => {
  const output = await new Deno.Command("make", {
    args: ["-s", "-C", REPO_ROOT, "run", "ARGS=--version"],
    clearEnv: true,
    env: launcherEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.equal(new TextDecoder().decode(output.stdout), `skillgate ${VERSION}\n`);
});

/** A fake `deno` on PATH that reports `version` and prints the argv it got, NUL-separated. */
async function fakeDenoDir(parent: string, version: string): Promise<string> {
  const dir = `${parent}/fake deno ${version}`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/deno`,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "deno ${version} (fake)"; exit 0; fi\n` +
      `for a in "$@"; do printf '%s\\0' "$a"; done\n`,
    { mode: 0o755 },
  );
  return dir;
}

Deno.test("launcher: without a pinned deno in .tools, runs a deno 2.9.x from PATH with exactly the trusted flags and every argument unchanged", async () => {
  await using caller = await callerFolder();
  await using checkout = await checkoutCopy("skillgate-launcher-path-", "checkout");
  // This copy has no pinned deno: only PATH's can run it.
  await Deno.remove(`${checkout.root}/.tools/node_modules`);
  const fake = await fakeDenoDir(caller.dir, "2.9.99");
  const args = ["serve", "./skills", "it's", "", "$HOME", "*", "--http=3000", "a\nb"];
  const run = await runLauncher(`${checkout.root}/skillgate`, args, {
    cwd: caller.dir,
    env: { PATH: `${fake}:${launcherEnv().PATH}` },
  });
  assert.equal(run.code, 0, run.stderr);
  const argv = run.stdout.split("\0").slice(0, -1);
  assert.deepEqual(argv, [
    "run",
    "--config",
    `${checkout.root}/deno.json`,
    ...trustedRunFlags(),
    `${checkout.root}/main.ts`,
    ...args,
  ]);
});

Deno.test("launcher: the pinned deno installed in .tools runs even with a deno 2.9.x on PATH, which is never started (no deno --version at each launch)", async () => {
  await using caller = await callerFolder();
  const fake = await fakeDenoDir(caller.dir, "2.9.99");
  const marker = `${caller.dir}/path deno ran`;
  // The fake records any start of itself.
  await Deno.writeTextFile(
    `${fake}/deno`,
    `#!/bin/sh\n: >"${marker}"\necho "deno 2.9.99 (fake)"\n`,
    { mode: 0o755 },
  );
  const run = await runLauncher(LAUNCHER, ["--version"], {
    cwd: caller.dir,
    env: { PATH: `${fake}:${launcherEnv().PATH}` },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
  assert.equal(await Deno.lstat(marker).then(() => true, () => false), false);
});

Deno.test("launcher: a deno of another version on PATH is not used (the pinned one is)", async () => {
  await using caller = await callerFolder();
  const fake = await fakeDenoDir(caller.dir, "2.8.0");
  const run = await runLauncher(LAUNCHER, ["--version"], {
    cwd: caller.dir,
    env: { PATH: `${fake}:${launcherEnv().PATH}` },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `skillgate ${VERSION}\n`);
});
