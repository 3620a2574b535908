import assert from "node:assert/strict";
import {
  CAPABILITY_DROP_ARGS,
  findGroupLauncher,
  isolate,
  LAUNCHER_SCRIPT,
  namespaceArgs,
  probeIsolation,
} from "../../src/scripts/isolation.ts";
import { runScript } from "../../src/scripts/runner/run_script.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { eventually, liveProcessesWith } from "../support/processes.ts";

const SH = "/bin/sh";
const isolation = await probeIsolation({
  shPath: SH,
  killer: createGroupKiller(),
  requested: "pid-namespace",
});
const hasNamespace = isolation.mode === "pid-namespace";

Deno.test("isolate() wraps a program in unshare only in pid-namespace mode", () => {
  const groupOnly = { mode: "process-group", unsharePath: null, note: "" } as const;
  assert.deepEqual(isolate("/usr/bin/python3", ["a.py"], groupOnly), {
    program: "/usr/bin/python3",
    args: ["a.py"],
    stopsBeforeExec: false,
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
  assert.equal(wrapped.stopsBeforeExec, false);
});

Deno.test("isolate() starts a group-mode script through the stopping launcher, setpriv first as root", () => {
  const base = { mode: "process-group", unsharePath: null, note: "" } as const;
  const user = isolate("/usr/bin/python3", ["a.py"], {
    ...base,
    launcher: { shPath: "/bin/sh", setprivPath: null },
  });
  assert.deepEqual(user, {
    program: "/bin/sh",
    args: ["-c", LAUNCHER_SCRIPT, "skillgate-launch", "/usr/bin/python3", "a.py"],
    stopsBeforeExec: true,
  });
  const root = isolate("/usr/bin/python3", ["a.py"], {
    ...base,
    launcher: { shPath: "/bin/sh", setprivPath: "/usr/bin/setpriv" },
  });
  assert.equal(root.program, "/usr/bin/setpriv");
  assert.deepEqual(root.args, [
    ...CAPABILITY_DROP_ARGS,
    "/bin/sh",
    "-c",
    LAUNCHER_SCRIPT,
    "skillgate-launch",
    "/usr/bin/python3",
    "a.py",
  ]);
  assert.equal(root.stopsBeforeExec, true);
});

Deno.test("findGroupLauncher() needs setpriv only as root", () => {
  const user = findGroupLauncher({ isRoot: false });
  assert.ok(user !== null && user.setprivPath === null && user.shPath.endsWith("/sh"));
  const root = findGroupLauncher({ isRoot: true });
  assert.ok(root === null || root.setprivPath?.endsWith("/setpriv"));
  assert.equal(findGroupLauncher({ isRoot: false, folders: ["/nonexistent"] }), null);
});

Deno.test("attack: a group-mode leader that backgrounds children and exits at once leaves no survivor (60 runs)", async () => {
  const group = await probeIsolation({
    shPath: SH,
    killer: createGroupKiller(),
    requested: "group",
  });
  assert.ok(group.launcher !== null && group.launcher !== undefined, group.note);
  const mark = `${Date.now() % 100000}.7`;
  const killer = createGroupKiller();
  for (let run = 0; run < 60; run++) {
    const wrapped = isolate(SH, [
      "-c",
      `sleep ${mark} >/dev/null 2>&1 & sleep ${mark} >/dev/null 2>&1 & exit 0`,
    ], group);
    const outcome = await runScript(
      { ...wrapped, cwd: "/tmp", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 },
      { killer, drainMs: 200, pipeDeadlineMs: 200 },
    );
    assert.equal(outcome.exitCode, 0, `run ${run}: ${outcome.stderr}`);
    assert.equal(outcome.groupVerified, true, `run ${run}`);
  }
  // SIGKILL is delivered, not waited for: under load the last run's children may still be dying
  // (seen once in session 14's loaded CI). A survivor sleeps for hours; the ceiling only bounds a
  // failing test.
  const isGone = await eventually(() => liveProcessesWith(`sleep ${mark}`).length === 0, 5);
  const left = liveProcessesWith(`sleep ${mark}`);
  for (const pid of left) Deno.kill(pid, "SIGKILL");
  assert.ok(isGone, `survivors: ${left.join(", ")}`);
});

Deno.test("the group launcher hands the script exactly its environment", async () => {
  const group = await probeIsolation({
    shPath: SH,
    killer: createGroupKiller(),
    requested: "group",
  });
  const wrapped = isolate("/usr/bin/env", [], group);
  const outcome = await runScript(
    { ...wrapped, cwd: "/tmp", env: { PATH: "/usr/bin:/bin", ONLY: "this" }, timeoutMs: 10_000 },
    { killer: createGroupKiller() },
  );
  assert.deepEqual(outcome.stdout.trim().split("\n").sort(), ["ONLY=this", "PATH=/usr/bin:/bin"]);
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
    // (The namespace's end kills it; its exit is not waited for, as above.)
    const isGone = await eventually(() => liveProcessesWith(`sleep ${mark}`).length === 0, 5);
    const left = liveProcessesWith(`sleep ${mark}`);
    for (const pid of left) Deno.kill(pid, "SIGKILL");
    assert.ok(isGone, `survivors: ${left.join(", ")}`);
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

Deno.test("probeIsolation() with --isolation=sandbox and no bwrap refuses, saying what to install", async () => {
  const refused = await probeIsolation({
    shPath: SH,
    killer: createGroupKiller(),
    folders: ["/nonexistent"],
    requested: "sandbox",
  });
  assert.match(refused.refusal ?? "", /--isolation=sandbox: no sandbox here: bwrap was not found/);
  assert.match(refused.refusal ?? "", /apt-get install bubblewrap/);
  const auto = await probeIsolation({
    shPath: SH,
    killer: createGroupKiller(),
    folders: ["/nonexistent"],
  });
  assert.equal(auto.refusal, undefined);
  assert.equal(auto.mode, "process-group");
  assert.match(auto.note, /No sandbox \(bwrap was not found/);
});

Deno.test({
  name: "probeIsolation() auto picks the sandbox when bwrap works, and isolate() spawns bwrap",
  ignore: !(await Deno.stat("/usr/bin/bwrap").then(() => true, () => false)),
  fn: async () => {
    const picked = await probeIsolation({ shPath: SH, killer: createGroupKiller() });
    if (picked.mode !== "sandbox") {
      // bwrap is installed but refused here (e.g. AppArmor): the note must say so.
      assert.match(picked.note, /No sandbox \(bwrap could not build a sandbox/);
      return;
    }
    const wrapped = isolate("/usr/bin/python3", ["a.py"], picked, {
      skillDir: "/srv/skills/a",
      read: [],
      write: [],
      network: false,
    });
    assert.equal(wrapped.program, picked.sandbox?.bwrapPath);
    assert.deepEqual(wrapped.args.slice(-3), ["--", "/usr/bin/python3", "a.py"]);
    assert.equal(wrapped.stopsBeforeExec, false);
    assert.ok(wrapped.layout?.namespaces.includes("pid"));
  },
});
