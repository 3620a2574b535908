import assert from "node:assert/strict";
import { createGroupKillClient } from "../../src/sandbox/group_kill_client.ts";
import { type GroupRequestMessage, parseWorkerMessage } from "../../src/sandbox/messages.ts";

Deno.test("the group kill client asks the trusted part and returns its answer", async () => {
  const target = new EventTarget();
  const requests: GroupRequestMessage[] = [];
  const killer = createGroupKillClient({
    postMessage: (message) => {
      requests.push(message);
      const ok = message.op !== "kill" || message.pid === 42;
      queueMicrotask(() =>
        target.dispatchEvent(
          new MessageEvent("message", { data: { type: "group-reply", id: message.id, ok } }),
        )
      );
    },
    addEventListener: (type, listener) => target.addEventListener(type, listener as EventListener),
  });
  assert.equal(await killer.register(42), true);
  assert.equal(await killer.kill(42, "SIGTERM"), true);
  assert.equal(await killer.kill(7, "SIGKILL"), false);
  killer.release(42);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(requests.map((request) => [request.op, request.pid, request.signal ?? null]), [
    ["register", 42, null],
    ["kill", 42, "SIGTERM"],
    ["kill", 7, "SIGKILL"],
    ["release", 42, null],
  ]);
});

Deno.test("parseWorkerMessage() accepts only well-formed group requests", () => {
  const ok = { type: "group", id: 1, op: "kill", pid: 9, signal: "SIGKILL" };
  assert.deepEqual(parseWorkerMessage(ok), ok);
  for (
    const bad of [
      { ...ok, signal: "SIGSTOP" },
      { ...ok, pid: "9" },
      { ...ok, op: "spawn" },
      { type: "group", id: 1, op: "kill", pid: 9 },
    ]
  ) assert.equal(parseWorkerMessage(bad), null, JSON.stringify(bad));
  assert.ok(parseWorkerMessage({ type: "group", id: 2, op: "register", pid: 9 }) !== null);
});
