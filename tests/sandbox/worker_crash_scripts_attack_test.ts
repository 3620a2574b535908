/**
 * Attack (r13, on the r12 F6 fix; "every exit path of the trusted part"): the
 * worker fails with an uncaught error (a bug reached by some input) while a
 * process-group script runs. The trusted part learns it through the worker's
 * `onerror` (`src/sandbox/worker_host.ts` `startWorker`), resolves `exited`
 * with code 1, and `serve` returns and exits (`main.ts` `Deno.exit`): the
 * worker's `stopAll()` never ran, and the trusted group killer, which holds
 * the verified group, is not asked to kill it (`killAllNow()` runs only on a
 * second signal or a stop deadline). The script outlives the server and its
 * own timeout. Here a test-only worker plays the run: it starts a script in
 * its own process group, has the trusted part register it, as the runner
 * does, then throws.
 */

import assert from "node:assert/strict";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { createWorkerIsolate, startWorker } from "../../src/sandbox/worker_host.ts";
import type { WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";
import type { Config } from "../../src/config/config.ts";
import { eventually, liveProcessesWith } from "../support/processes.ts";

const MARK = `${20 + Math.floor(Math.random() * 30)}.${Date.now() % 1_000_000}`;
const SLEEP = Deno.realPathSync("/bin/sleep");

Deno.test("attack: a worker that crashes while a process-group script runs leaves no script running once the session has ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-worker-crash-" });
  try {
    const entry = new URL(`file://${dir}/entry.js`);
    await Deno.writeTextFile(
      entry,
      `const child = new Deno.Command(${JSON.stringify(SLEEP)}, {
  args: [${JSON.stringify(MARK)}], detached: true, stdin: "null", stdout: "null", stderr: "null",
}).spawn();
self.onmessage = (event) => {
  if (event.data?.type === "group-reply") {
    if (event.data.ok !== true) self.postMessage({ type: "exit", code: 9, message: "not registered" });
    else throw new Error("the worker failed while a script runs");
  }
};
self.postMessage({ type: "group", id: 1, op: "register", pid: child.pid });
`,
    );
    const permissions: WorkerPermissions = {
      read: [],
      write: [],
      run: [SLEEP],
      net: [],
      env: [],
      sys: [],
      ffi: [],
    };
    const worker = createWorkerIsolate(entry, permissions);
    const session = startWorker(entry, {} as Config, permissions, {
      worker,
      groupKiller: createGroupKiller(),
    });
    const exit = await session.exited;
    assert.equal(exit.code, 1, `the worker crashed (not: ${exit.message})`);
    assert.match(exit.message ?? "", /Internal error in the worker/);
    assert.ok(
      await eventually(() => liveProcessesWith(`sleep ${MARK}`).length === 0, 15),
      "the registered script's group is still running after the session ended",
    );
  } finally {
    for (const left of liveProcessesWith(`sleep ${MARK}`)) Deno.kill(left, "SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});
