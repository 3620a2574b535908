import assert from "node:assert/strict";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import { REPO_ROOT } from "../support/program.ts";

const BINARY = `${REPO_ROOT}dist/skillgate`;

async function make(
  target: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const environment = { ...Deno.env.toObject(), ...env };
  if (env.DENORT_BIN === undefined) delete environment.DENORT_BIN;
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

async function binaryMtime(): Promise<number | null> {
  try {
    return (await Deno.stat(BINARY)).mtime?.getTime() ?? 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

Deno.test("make compile embeds exactly the trusted flags and includes the worker module", async () => {
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
    "--output",
    "dist/skillgate",
    "main.ts",
  ]);
});

Deno.test("make compile refuses a DENORT_BIN that is the full deno CLI", async () => {
  const before = await binaryMtime();
  const run = await make("compile", { DENORT_BIN: Deno.execPath() });
  assert.notEqual(run.code, 0);
  assert.match(
    run.stderr,
    /skillgate: DENORT_BIN=".*" is the full deno CLI, not denort, .* opens a REPL with every permission/,
  );
  assert.match(run.stderr, /Point DENORT_BIN at denort 2\.9\.6/);
  assert.equal(await binaryMtime(), before, "no binary was written");
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
    const run = await make("compile", { DENORT_BIN: fake });
    assert.notEqual(run.code, 0);
    assert.doesNotMatch(run.stderr, /is the full deno CLI/);
    assert.match(run.stderr, /Not an ELF file/, "deno compile itself read the base runtime");
    assert.match(run.stderr, /skillgate: deno compile failed \(see above\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("make compile without DENORT_BIN builds, or says how to build offline", async () => {
  const run = await make("compile");
  if (run.code === 0) {
    assert.ok((await binaryMtime()) !== null, "dist/skillgate exists");
    return;
  }
  assert.match(
    run.stderr,
    /skillgate: deno compile could not download its base runtime \(denort 2\.9\.6\).*make compile DENORT_BIN=\/path\/to\/denort/,
  );
});
