/**
 * Attack: in process-group isolation a granted script opens
 * `/proc/$PPID/fd/1` to write forged JSON-RPC into skillgate's stdout, and
 * `/proc/$PPID/fd/0` to read its stdin. Each control run (no wall) shows the
 * attack works; with `makeNonDumpable()` and the launcher (which, as root,
 * also drops every capability) both opens are refused. Run as the current
 * user and, when that is root, also as an ordinary user (`nobody`), where
 * the non-dumpable flag is the wall that matters.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../support/program.ts";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";

const SETPRIV = "/usr/bin/setpriv";
const isRoot = Deno.build.os === "linux" && Deno.uid() === 0;
const canDropToNobody = isRoot && (() => {
  try {
    return Deno.statSync(SETPRIV).isFile;
  } catch {
    return false;
  }
})();

async function probe(mode: "wall" | "control", options: { asNobody: boolean }) {
  await using home = await tempHome(options.asNobody);
  const deno = [
    Deno.execPath(),
    "run",
    ...trustedRunFlags().filter((flag) => flag !== "--cached-only"),
    `${REPO_ROOT}tests/support/dumpable_probe_main.ts`,
    mode,
  ];
  // As nobody, the probe's stdout must be a pipe nobody made (a pipe is its maker's, mode 0600).
  const argv = options.asNobody
    ? [
      SETPRIV,
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "/bin/sh",
      "-c",
      '"$@" | cat',
      "sh",
      ...deno,
    ]
    : deno;
  const output = await new Deno.Command(argv[0] as string, {
    args: argv.slice(1),
    cwd: "/tmp",
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", HOME: home.path, DENO_DIR: home.path },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const lines = stdout.trim().split("\n");
  return { lines, result: JSON.parse(lines.at(-1) ?? "{}") };
}

async function tempHome(isForNobody: boolean) {
  const path = await Deno.makeTempDir({ prefix: "skillgate-dumpable-" });
  if (isForNobody) await Deno.chown(path, 65534, 65534);
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function assertWallHolds(options: { asNobody: boolean }): Promise<void> {
  const control = await probe("control", options);
  assert.match(control.result.stdout, /write=open/, "without the wall the attack works");
  assert.match(control.result.stdout, /read=open/);
  assert.ok(control.lines.includes("forged"), "the forged line reached the parent's stdout");

  const walled = await probe("wall", options);
  assert.equal(walled.result.status.isNonDumpable, true, walled.result.status.note);
  assert.match(walled.result.stdout, /write=denied/);
  assert.match(walled.result.stdout, /read=denied/);
  assert.ok(!walled.lines.includes("forged"));
}

Deno.test({
  name: "attack: a granted script writes to /proc/$PPID/fd/1 and opens fd 0 (as this user)",
  ignore: Deno.build.os !== "linux",
  fn: () => assertWallHolds({ asNobody: false }),
});

Deno.test({
  name: "attack: a granted script writes to /proc/$PPID/fd/1 and opens fd 0 (as an ordinary user)",
  ignore: !canDropToNobody,
  fn: () => assertWallHolds({ asNobody: true }),
});
