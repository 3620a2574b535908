import assert from "node:assert/strict";
import { isolate, namespaceArgs, probeIsolation } from "../../src/scripts/isolation.ts";
import { runScript } from "../../src/scripts/runner/run_script.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { liveProcessesWith } from "../support/processes.ts";

const SH = "/bin/sh";
const isolation = await probeIsolation({ shPath: SH, killer: createGroupKiller() });
const hasNamespace = isolation.mode === "pid-namespace";

Deno.test("isolate() wraps a program in unshare only in pid-namespace mode", () => {
  const groupOnly = { mode: "process-group", unsharePath: null, note: "" } as const;
  assert.deepEqual(isolate("/usr/bin/python3", ["a.py"], groupOnly), {
    program: "/usr/bin/python3",
    args: ["a.py"],
  });
  const wrapped = isolate("/usr/bin/python3", ["a.py"], {
    mode: "pid-namespace",
    unsharePath: "/usr/bin/unshare",
    note: "",
  });
  assert.equal(wrapped.program, "/usr/bin/unshare");
  assert.deepEqual(wrapped.args, [
    ...namespaceArgs("/usr/bin/unshare"),
    "/usr/bin/python3",
    "a.py",
  ]);
});

Deno.test({
  name: "in a PID namespace a setsid descendant ends with the script",
  ignore: !hasNamespace,
  fn: async () => {
    const mark = `${Date.now() % 100000}.5`;
    const wrapped = isolate(SH, ["-c", `setsid sleep ${mark} & echo $$`], isolation);
    const outcome = await runScript(
      { ...wrapped, cwd: "/tmp", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 },
      { killer: createGroupKiller() },
    );
    assert.equal(outcome.stdout, "1\n");
    assert.equal(outcome.pipesAbandoned, false);
    assert.deepEqual(liveProcessesWith(`sleep ${mark}`), []);
  },
});

Deno.test({
  name: "in a PID namespace /proc shows only the script and cannot be unmounted",
  ignore: !hasNamespace,
  fn: async () => {
    const script = "umount /proc 2>/dev/null; umount -l /proc 2>/dev/null; " +
      "ls /proc | grep -c '^[0-9]'; test -e /proc/" + Deno.pid +
      " && echo sees-parent || echo private";
    const wrapped = isolate(SH, ["-c", script], isolation);
    const outcome = await runScript(
      {
        ...wrapped,
        cwd: "/tmp",
        env: { PATH: "/usr/bin:/bin:/usr/sbin:/sbin" },
        timeoutMs: 10_000,
      },
      { killer: createGroupKiller() },
    );
    const [count, verdict] = outcome.stdout.trim().split("\n");
    assert.equal(verdict, "private");
    assert.ok(Number(count) <= 5, `saw ${count} processes`);
  },
});
