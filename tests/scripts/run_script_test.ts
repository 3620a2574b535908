import assert from "node:assert/strict";
import { runScript, type RunSpec } from "../../src/scripts/runner/run_script.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import { eventually, isAlive } from "../support/processes.ts";

const TABLE = lookUpInterpreters(Deno.env.get("PATH"));
const SH = TABLE.sh.available ? TABLE.sh.path ?? "/bin/sh" : "/bin/sh";
const PYTHON = TABLE.python3.available ? TABLE.python3.path ?? "python3" : "python3";
const BASE_ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/tmp" };

function spec(program: string, args: string[], overrides: Partial<RunSpec> = {}): RunSpec {
  return { program, args, cwd: "/tmp", env: BASE_ENV, timeoutMs: 20_000, ...overrides };
}

Deno.test("runScript() passes argv exactly, shell metacharacters untouched", async () => {
  const args = ["a b", "$(id)", "`id`", "; rm -rf /", "*", "'\"", "|&>", "ünï", ""];
  const outcome = await runScript(
    spec(PYTHON, ["-c", "import json,sys; print(json.dumps(sys.argv[1:]))", ...args]),
    { killer: createGroupKiller() },
  );
  assert.equal(outcome.exitCode, 0, outcome.stderr);
  assert.deepEqual(JSON.parse(outcome.stdout), args);
  const shell = await runScript(spec(SH, ["-c", 'printf "%s\\n" "$@"', "sh", ...args]), {
    killer: createGroupKiller(),
  });
  assert.equal(shell.stdout, args.map((arg) => `${arg}\n`).join(""));
});

Deno.test("runScript() gives the child exactly the environment it was handed", async () => {
  const env = { ...BASE_ENV, ONLY_THIS: "1" };
  const names = await runScript(spec(SH, ["-c", "env"], { env }), { killer: createGroupKiller() });
  const seen = names.stdout.trim().split("\n").map((line) => line.split("=")[0]).sort();
  assert.deepEqual(seen.filter((name) => name !== "PWD" && name !== "SHLVL" && name !== "_"), [
    "HOME",
    "ONLY_THIS",
    "PATH",
  ]);
});

Deno.test("runScript() reports a non-zero exit and stderr as a normal outcome", async () => {
  const outcome = await runScript(spec(SH, ["-c", "echo oops >&2; exit 3"]), {
    killer: createGroupKiller(),
  });
  assert.equal(outcome.exitCode, 3);
  assert.equal(outcome.signal, null);
  assert.equal(outcome.stderr, "oops\n");
  assert.equal(outcome.timedOut, false);
  assert.equal(outcome.groupVerified, true);
});

Deno.test("runScript() on timeout ends the script and every child in its group", async () => {
  const outcome = await runScript(
    spec(SH, ["-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait"], { timeoutMs: 500 }),
    { killer: createGroupKiller(), graceMs: 500 },
  );
  assert.equal(outcome.timedOut, true);
  assert.equal(outcome.exitCode, null);
  assert.equal(outcome.signal, "SIGTERM");
  const pids = outcome.stdout.trim().split("\n").map(Number);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.ok(await eventually(() => !isAlive(pid)), `pid ${pid} survived`);
});

Deno.test("runScript() escalates to SIGKILL when SIGTERM is ignored", async () => {
  const outcome = await runScript(
    spec(SH, ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], { timeoutMs: 300 }),
    { killer: createGroupKiller(), graceMs: 300 },
  );
  assert.equal(outcome.timedOut, true);
  assert.equal(outcome.signal, "SIGKILL");
  assert.equal(outcome.stdout, "ready\n");
});

Deno.test("runScript() returns by the deadline when a detached grandchild holds the pipes", async () => {
  const outcome = await runScript(
    spec(SH, ["-c", "setsid sleep 30 & echo $!"]),
    { killer: createGroupKiller(), drainMs: 200, pipeDeadlineMs: 200 },
  );
  const grandchild = Number(outcome.stdout.trim());
  try {
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.pipesAbandoned, true);
    assert.ok(outcome.durationMs < 20_000);
  } finally {
    if (grandchild > 1 && isAlive(grandchild)) Deno.kill(grandchild, "SIGKILL");
  }
});

Deno.test("runScript() ends what is left of the group after the leader exits", async () => {
  const outcome = await runScript(
    spec(SH, ["-c", "sleep 60 >/dev/null 2>&1 & echo $!"]),
    { killer: createGroupKiller() },
  );
  const straggler = Number(outcome.stdout.trim());
  assert.equal(outcome.pipesAbandoned, false);
  assert.ok(await eventually(() => !isAlive(straggler)), "the background child survived");
});

Deno.test("runScript() caps each stream at 1 MiB and flags it", async () => {
  const outcome = await runScript(
    spec(PYTHON, [
      "-c",
      "import sys; sys.stdout.write('x' * (5 * 512 * 1024)); sys.stderr.write('e' * 10)",
    ]),
    { killer: createGroupKiller() },
  );
  assert.equal(outcome.exitCode, 0);
  assert.equal(outcome.stdout.length, 1024 * 1024);
  assert.deepEqual(outcome.truncated, { stdout: true, stderr: false });
  assert.equal(outcome.stderr, "e".repeat(10));
});

Deno.test("runScript() decodes invalid UTF-8 with replacement characters", async () => {
  const outcome = await runScript(spec(SH, ["-c", "printf 'a\\377b'"]), {
    killer: createGroupKiller(),
  });
  assert.equal(outcome.stdout, "a\uFFFDb");
});

Deno.test("runScript() ends the group when the run is cancelled", async () => {
  const controller = new AbortController();
  const outcomePromise = runScript(spec(SH, ["-c", "echo go; sleep 60"]), {
    killer: createGroupKiller(),
    signal: controller.signal,
    onOutputBytes: () => controller.abort(),
  });
  const outcome = await outcomePromise;
  assert.equal(outcome.cancelled, true);
  assert.equal(outcome.timedOut, false);
  assert.equal(outcome.signal, "SIGTERM");
});

Deno.test("runScript() reports a program that cannot start", async () => {
  const outcome = await runScript(spec("/nonexistent/program", []), {
    killer: createGroupKiller(),
  });
  assert.equal(outcome.spawnError, "NotFound");
  assert.equal(outcome.exitCode, null);
});

Deno.test("runScript() still ends the leader when its group cannot be verified", async () => {
  const refusing = {
    register: () => Promise.resolve(false),
    kill: () => Promise.resolve(false),
    release: () => {},
  };
  const outcome = await runScript(
    spec(SH, ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], { timeoutMs: 300 }),
    { killer: refusing, graceMs: 300, drainMs: 200, pipeDeadlineMs: 200 },
  );
  assert.equal(outcome.timedOut, true);
  assert.equal(outcome.signal, "SIGKILL");
  assert.equal(outcome.groupVerified, false);
});
