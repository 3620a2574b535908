import assert from "node:assert/strict";
import { createGroupKiller, parseLeaderStat } from "../../src/sandbox/group_killer.ts";

const statLine = (pid: number, ppid: number, pgid: number, start = "777", state = "S") =>
  `${pid} (we ird) name) ${state} ${ppid} ${pgid} ${pgid} 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 ${start} 1 2`;

function fakeIo(stats: Map<number, string>) {
  const sent: [number, string][] = [];
  return {
    sent,
    io: {
      ownPid: 100,
      readStat: (pid: number) => stats.get(pid) ?? null,
      killGroup: (pgid: number, signal: string) => {
        sent.push([pgid, signal]);
      },
      pollDelay: () => Promise.resolve(),
    },
  };
}

Deno.test("parseLeaderStat() counts fields after the last parenthesis", () => {
  assert.deepEqual(parseLeaderStat(statLine(5, 100, 5)), {
    state: "S",
    ppid: 100,
    pgid: 5,
    startTime: "777",
  });
  assert.equal(parseLeaderStat("garbage"), null);
});

Deno.test("the group killer refuses a pid that is not its own detached child", async () => {
  const stats = new Map([
    [200, statLine(200, 100, 200)],
    [300, statLine(300, 999, 300)],
    [400, statLine(400, 100, 100)],
  ]);
  const { io, sent } = fakeIo(stats);
  const killer = createGroupKiller(io);
  assert.equal(await killer.register(300), false, "another parent");
  assert.equal(await killer.register(400), false, "not a group leader");
  assert.equal(await killer.register(1), false, "init");
  assert.equal(await killer.kill(300, "SIGKILL"), false, "never registered");
  assert.equal(await killer.register(200), true);
  assert.equal(await killer.kill(200, "SIGTERM"), true);
  assert.deepEqual(sent, [[200, "SIGTERM"]]);
});

Deno.test("the group killer still ends a registered group whose leader was reaped", async () => {
  const stats = new Map([[200, statLine(200, 100, 200)]]);
  const { io, sent } = fakeIo(stats);
  const killer = createGroupKiller(io);
  assert.equal(await killer.register(200), true);
  stats.delete(200);
  assert.equal(await killer.kill(200, "SIGKILL"), true);
  killer.release(200);
  assert.equal(await killer.kill(200, "SIGKILL"), false, "released");
  assert.deepEqual(sent, [[200, "SIGKILL"]]);
});

Deno.test("the group killer forgets a group whose pid now names another process", async () => {
  const stats = new Map([[200, statLine(200, 100, 200, "777")]]);
  const { io, sent } = fakeIo(stats);
  const killer = createGroupKiller(io);
  assert.equal(await killer.register(200), true);
  stats.set(200, statLine(200, 100, 200, "999"));
  assert.equal(await killer.kill(200, "SIGKILL"), false);
  stats.set(200, statLine(200, 100, 200, "777"));
  assert.equal(await killer.kill(200, "SIGKILL"), false, "forgotten for good");
  assert.deepEqual(sent, []);
});

Deno.test("a launched leader is registered only once stopped, then continued", async () => {
  const stats = new Map([[200, statLine(200, 100, 200, "777", "R")]]);
  const { io, sent } = fakeIo(stats);
  let looks = 0;
  const killer = createGroupKiller({
    ...io,
    readStat: (pid) => {
      if (++looks === 3) stats.set(200, statLine(200, 100, 200, "777", "T"));
      return stats.get(pid) ?? null;
    },
  });
  assert.equal(await killer.register(200, { awaitsStop: true }), true);
  assert.ok(looks >= 3, "it waited for the stop");
  assert.deepEqual(sent, [[200, "SIGCONT"]], "continued only after registering");
  assert.equal(await killer.kill(200, "SIGKILL"), true);
});

Deno.test("a launched leader that never stops, or is not ours, is not registered or continued", async () => {
  const stats = new Map([
    [200, statLine(200, 100, 200, "777", "S")],
    [300, statLine(300, 999, 300, "777", "T")],
  ]);
  const { io, sent } = fakeIo(stats);
  const killer = createGroupKiller(io);
  assert.equal(await killer.register(200, { awaitsStop: true }), false, "never stopped");
  assert.equal(await killer.register(300, { awaitsStop: true }), false, "another parent");
  assert.equal(await killer.register(400, { awaitsStop: true }), false, "gone");
  assert.deepEqual(sent, []);
});

Deno.test("killAllNow() kills every registered group still ours, at once, and none whose pid was reused", async () => {
  const stats = new Map([
    [200, statLine(200, 100, 200)],
    [300, statLine(300, 100, 300)],
    [400, statLine(400, 100, 400)],
  ]);
  const { io, sent } = fakeIo(stats);
  const killer = createGroupKiller(io);
  for (const pid of [200, 300, 400]) assert.equal(await killer.register(pid), true);
  stats.delete(300); // leader reaped, group may still hold its children
  stats.set(400, statLine(400, 100, 400, "999")); // another process took pid 400
  assert.equal(killer.killAllNow(), 2);
  assert.deepEqual(sent, [[200, "SIGKILL"], [300, "SIGKILL"]]);
  assert.equal(await killer.kill(200, "SIGKILL"), false, "forgotten after killAllNow()");
});
