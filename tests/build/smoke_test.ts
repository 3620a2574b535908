import assert from "node:assert/strict";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

/** Runs .ci/smoke.ts (the script make compile and the release workflow run) on a command. */
async function smoke(command: readonly string[]): Promise<{ code: number; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${REPO_ROOT}.ci/smoke.ts`, "--", ...command],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(),
    stdin: "null",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

async function withScript(text: string, body: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-smoke-" });
  try {
    const path = `${dir}/fake-skillgate`;
    await Deno.writeTextFile(path, text);
    await Deno.chmod(path, 0o755);
    await body(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the smoke script passes on deno run with the trusted flags and main.ts (the binary's stand-in)", async () => {
  const run = await smoke([Deno.execPath(), ...programCommand([])]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /smoke: --version: skillgate \d+\.\d+\.\d+/);
  assert.match(run.stderr, /smoke: permissions --json: the worker's permission set printed/);
  assert.match(run.stderr, /initialize, tools\/list, skill_list, skill_load answered/);
  assert.match(run.stderr, /smoke: on linux-\w+: isolation \S+/, "it shows what holds here");
  assert.match(run.stderr, /smoke: PASSED/);
});

Deno.test("the smoke script fails with the reason when --version is not skillgate's", async () => {
  const run = await smoke(["/bin/true"]);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /smoke: FAILED: \/bin\/true: --version printed .*not "skillgate X\.Y\.Z"/,
  );
});

Deno.test("the smoke script fails when a command does not exist", async () => {
  const run = await smoke([`${REPO_ROOT}dist/no-such-skillgate`]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /smoke: FAILED: .*no-such-skillgate: the command does not exist/);
});

Deno.test("attack: the smoke script fails a server that writes a non-protocol line to stdout", async () => {
  // The real program for the one-shot commands; for serve, a banner on stdout, then the real one.
  const real = [Deno.execPath(), ...programCommand([])].map((word) => `'${word}'`).join(" ");
  await withScript(
    `#!/bin/sh\nif [ "$1" = serve ]; then echo "skillgate is ready"; fi\nexec ${real} "$@"\n`,
    async (path) => {
      const run = await smoke([path]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /FAILED: .*stdout carried a line that is not JSON-RPC: "skillgate is ready"/,
      );
    },
  );
});

Deno.test("the smoke script fails with the server's stderr when serve exits at once", async () => {
  const real = [Deno.execPath(), ...programCommand([])].map((word) => `'${word}'`).join(" ");
  await withScript(
    `#!/bin/sh\nif [ "$1" = serve ]; then echo "cannot find the standalone section" >&2; exit 1; fi\nexec ${real} "$@"\n`,
    async (path) => {
      const run = await smoke([path]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /initialize: the server (closed stdout before answering|stopped reading stdin)/,
      );
      assert.match(run.stderr, /cannot find the standalone section/);
    },
  );
});
