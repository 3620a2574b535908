/**
 * Attack (r13, on the r12 F6 fix): `main.ts`'s internal-error exit called
 * `Deno.exit(1)` directly, so an exception in the trusted part while scripts
 * ran left their process groups (`--isolation=group`) running after
 * skillgate was gone. Every exit now goes through `exitProcess()`
 * (`src/sandbox/process_exit.ts`), which ends every registered group first;
 * the source scan holds `Deno.exit` to that module.
 */

import assert from "node:assert/strict";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { endGroupsAtExit, exitProcess } from "../../src/sandbox/process_exit.ts";
import { findViolations } from "../support/source_scan.ts";
import { SCAN_ALLOWANCES } from "../support/source_scan_policy.ts";
import { eventually, isAlive } from "../support/processes.ts";

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
const recordExit = (code: number): never => {
  throw new Exited(code);
};

Deno.test("attack: an internal error's exit leaves no script process group running (exitProcess() ends every registered group first)", async () => {
  const MARK = `${20 + Math.floor(Math.random() * 30)}.${Date.now() % 1_000_000}`;
  const child = new Deno.Command("sleep", {
    args: [MARK],
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const killer = createGroupKiller();
  const unregister = endGroupsAtExit(() => killer.killAllNow());
  try {
    assert.equal(await killer.register(child.pid), true, "the script's group is registered");
    assert.throws(() => exitProcess(1, recordExit), (error) => (error as Exited).code === 1);
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL", "the group was killed before the exit");
    assert.ok(await eventually(() => !isAlive(child.pid)));
  } finally {
    unregister();
    if (isAlive(child.pid)) child.kill("SIGKILL");
    await child.status;
  }
});

Deno.test("exitProcess() still exits when a registered ender throws, and calls the others", () => {
  const called: string[] = [];
  const removeFirst = endGroupsAtExit(() => {
    called.push("first");
    throw new Error("no /proc");
  });
  const removeSecond = endGroupsAtExit(() => {
    called.push("second");
    return 0;
  });
  try {
    assert.throws(() => exitProcess(143, recordExit), (error) => (error as Exited).code === 143);
    assert.deepEqual(called, ["first", "second"]);
  } finally {
    removeFirst();
    removeSecond();
  }
  called.length = 0;
  assert.throws(() => exitProcess(0, recordExit));
  assert.deepEqual(called, [], "a removed ender is not called");
});

Deno.test("the source scan refuses Deno.exit outside src/sandbox/process_exit.ts", () => {
  const source = "export function quit(): never {\n  return Deno.exit(1);\n}\n";
  const violations = findViolations(new Map([["src/cli/new_exit.ts", source]]), SCAN_ALLOWANCES);
  assert.deepEqual(violations, [{
    path: "src/cli/new_exit.ts",
    api: "Deno.exit",
    line: 2,
    column: 10,
  }]);
  assert.deepEqual(
    findViolations(new Map([["src/sandbox/process_exit.ts", source]]), SCAN_ALLOWANCES),
    [],
  );
});
