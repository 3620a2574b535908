import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import { REPO_ROOT } from "../support/program.ts";

const DIST = `${REPO_ROOT}dist`;

/** The dist/ name `make compile` gives this machine's binary (.ci/compile.sh's table). */
const BINARY_NAME = ({
  "x86_64-unknown-linux-gnu": "skillgate-linux-x64",
  "aarch64-unknown-linux-gnu": "skillgate-linux-arm64",
  "x86_64-apple-darwin": "skillgate-macos-x64",
  "aarch64-apple-darwin": "skillgate-macos-arm64",
  "x86_64-pc-windows-msvc": "skillgate-windows-x64.exe",
} as Record<string, string>)[Deno.build.target]!;

async function make(
  target: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const environment = { ...Deno.env.toObject(), ...env };
  if (env.DENORT_BIN === undefined) delete environment.DENORT_BIN;
  if (env.DENORT_SHA256 === undefined) delete environment.DENORT_SHA256;
  for (const [name, value] of Object.entries(env)) if (value === "") delete environment[name];
  const output = await new Deno.Command("make", {
    args: ["-s", target],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: environment,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The binaries in dist/ (empty when the folder does not exist; bundles and tarballs aside). */
async function distEntries(): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(DIST)) {
      if (!/\.(mcpb|tgz)$/.test(entry.name)) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort();
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

Deno.test("make compile embeds exactly the trusted flags and includes every worker module", async () => {
  const plan = await make("compile-plan");
  assert.equal(plan.code, 0, plan.stderr);
  const argv = plan.stdout.trimEnd().split("\n");
  const flags = trustedRunFlags();
  assert.equal(argv[1], "compile");
  assert.deepEqual(argv.slice(2, 2 + flags.length), flags);
  assert.ok(flags.includes("--unstable-worker-options"));
  assert.deepEqual(argv.slice(2 + flags.length), [
    "--include",
    "src/worker/entry.ts",
    "--include",
    "src/remote/fetcher_entry.ts",
    "--include",
    "src/sandbox/declared_env_entry.ts",
    "--include",
    "src/mcp/skills_extension/digest_entry.ts",
    "--include",
    "src/cli/on_demand.ts",
    "--output",
    `dist/${BINARY_NAME}`,
    "main.ts",
  ]);
});

Deno.test("attack: make compile DENORT_BIN=/bin/true without DENORT_SHA256 is refused and leaves nothing in dist/", async () => {
  const run = await make("compile", { DENORT_BIN: "/bin/true" });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /DENORT_BIN is accepted only with DENORT_SHA256=<sum>/);
  assert.deepEqual(await distEntries(), []);
});

Deno.test("attack: make compile DENORT_BIN=/bin/true with its own sum builds a binary that fails the smoke test, and removes it", async () => {
  const run = await make("compile", {
    DENORT_BIN: "/bin/true",
    DENORT_SHA256: await sha256("/bin/true"),
  });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /smoke: FAILED: dist\/skillgate-\S+: --version printed/);
  assert.match(run.stderr, /failed its smoke test \(see above\), so it was removed/);
  assert.doesNotMatch(run.stderr, /skillgate: built/);
  assert.deepEqual(await distEntries(), []);
});

Deno.test("make compile refuses a DENORT_BIN whose SHA-256 is not the DENORT_SHA256 given", async () => {
  const run = await make("compile", { DENORT_BIN: "/bin/true", DENORT_SHA256: "0".repeat(64) });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /has SHA-256 [0-9a-f]{64}, not DENORT_SHA256=0{64}\. Nothing was built/);
  assert.deepEqual(await distEntries(), []);
});

Deno.test("make compile refuses a DENORT_BIN that is the full deno CLI", async () => {
  const run = await make("compile", {
    DENORT_BIN: Deno.execPath(),
    DENORT_SHA256: await sha256(Deno.execPath()),
  });
  assert.notEqual(run.code, 0);
  assert.match(
    run.stderr,
    /skillgate: DENORT_BIN=".*" is the full deno CLI, not denort, .* opens a REPL with every permission/,
  );
  assert.match(run.stderr, /Point DENORT_BIN at denort 2\.9\.6/);
  assert.deepEqual(await distEntries(), []);
});

Deno.test("make compile refuses a DENORT_BIN that is not an executable file", async () => {
  const run = await make("compile", { DENORT_BIN: `${REPO_ROOT}deno.json` });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /DENORT_BIN=".*deno\.json" is not an executable file/);
});

Deno.test("make compile passes a denort-like DENORT_BIN on to deno compile", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-denort-" });
  try {
    const fake = `${dir}/denort`;
    await Deno.writeTextFile(
      fake,
      "#!/bin/sh\necho 'This executable is used internally by deno compile' >&2\nexit 1\n",
    );
    await Deno.chmod(fake, 0o755);
    const run = await make("compile", { DENORT_BIN: fake, DENORT_SHA256: await sha256(fake) });
    assert.notEqual(run.code, 0);
    assert.doesNotMatch(run.stderr, /is the full deno CLI/);
    assert.match(run.stderr, /Not an ELF file/, "deno compile itself read the base runtime");
    assert.match(run.stderr, /skillgate: deno compile failed \(see above\)/);
    assert.deepEqual(await distEntries(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a cached denort zip whose sum is not the pinned one is refused before deno compile runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-denort-cache-" });
  try {
    const release = `${dir}/dl/release/v2.9.6`;
    await Deno.mkdir(release, { recursive: true });
    const zip = `${release}/denort-${Deno.build.target}.zip`;
    await Deno.writeTextFile(zip, "not Deno's denort\n");
    const sums = `${dir}/denort.sha256`;
    await Deno.writeTextFile(sums, `${"a".repeat(64)}  denort-${Deno.build.target}.zip\n`);
    const run = await make("compile", { DENO_DIR: dir, SKILLGATE_DENORT_SUMS: sums });
    assert.notEqual(run.code, 0);
    assert.match(
      run.stderr,
      /has SHA-256 [0-9a-f]{64}, not the .* sum a{64}: it is not Deno's denort/,
    );
    assert.doesNotMatch(run.stderr, /Compile/, "deno compile did not run");
    assert.deepEqual(await distEntries(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("make compile says a cached denort zip is unverified while the sums file holds no sums", async () => {
  const committed = await Deno.readTextFile(`${REPO_ROOT}.ci/denort-2.9.6.sha256`);
  const sums = committed.split("\n").filter((line) => /^[0-9a-f]{64} {2}denort-/.test(line));
  if (sums.length > 0) {
    // Filled from Deno's release: the mismatch test above covers the check.
    assert.ok(sums.every((line) => /^[0-9a-f]{64} {2}denort-[a-z0-9_-]+\.zip$/.test(line)));
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "skillgate-denort-cache-" });
  try {
    const release = `${dir}/dl/release/v2.9.6`;
    await Deno.mkdir(release, { recursive: true });
    await Deno.writeTextFile(`${release}/denort-${Deno.build.target}.zip`, "not a zip\n");
    const run = await make("compile", { DENO_DIR: dir });
    assert.notEqual(run.code, 0, "a broken zip never yields a binary");
    assert.match(run.stderr, /is UNVERIFIED: .* holds no sum yet .* the smoke test is the guard/);
    assert.deepEqual(await distEntries(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("make compile without DENORT_BIN builds a smoke-tested binary, or says how to build offline", async () => {
  const run = await make("compile");
  if (run.code === 0) {
    assert.match(run.stderr, /smoke: PASSED/);
    assert.ok((await distEntries()).includes(BINARY_NAME));
    return;
  }
  assert.match(
    run.stderr,
    /skillgate: deno compile could not download its base runtime \(denort 2\.9\.6\).*make compile DENORT_BIN=\/path\/to\/denort DENORT_SHA256=/,
  );
  assert.deepEqual(await distEntries(), []);
});

Deno.test("attack: make compile never lets deno compile use the caller's default Deno cache, which others may have written into", async () => {
  // ~/.cache/deno is made by any earlier `deno` run with that run's umask (group-writable under
  // umask 002): deno compile would read transpiled sources and npm packages from it into the
  // binary. The launcher's private cache (.bundle/deno, 0700) is given instead.
  const dir = await Deno.makeTempDir({ prefix: "skillgate-compile-home-" });
  try {
    const home = `${dir}/home`;
    await Deno.mkdir(home);
    const fake = `${dir}/denort`;
    await Deno.writeTextFile(
      fake,
      "#!/bin/sh\necho 'This executable is used internally by deno compile' >&2\nexit 1\n",
    );
    await Deno.chmod(fake, 0o755);
    const environment: Record<string, string> = { HOME: home, XDG_CACHE_HOME: `${home}/.cache` };
    const run = await make("compile", {
      ...environment,
      DENORT_BIN: fake,
      DENORT_SHA256: await sha256(fake),
      DENO_DIR: "",
    });
    assert.match(run.stderr, /Not an ELF file/, "deno compile itself ran");
    const madeThere: string[] = [];
    for await (const entry of Deno.readDir(home)) madeThere.push(entry.name);
    assert.deepEqual(madeThere, [], "nothing was written to the caller's home (~/.cache/deno)");
    assert.deepEqual(await distEntries(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
