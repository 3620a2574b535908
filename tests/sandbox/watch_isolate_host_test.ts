/**
 * createWatchIsolateHost(): the trusted part answers the serving worker's
 * watch protocol from its inotify service, confined to the roots: a path
 * the worker asks for outside them is answered lost (`NotCapable`) and
 * nothing of it is ever reported; a new request detaches the previous port.
 */

import assert from "node:assert/strict";
import { createWatchIsolateHost } from "../../src/sandbox/watch_isolate_host.ts";
import type { WatchIsolateEndedMessage } from "../../src/sandbox/messages.ts";
import {
  MAX_WATCHES_PER_PORT,
  startWatchService,
} from "../../src/refresh/inotify/watch_service.ts";
import { NO_INOTIFY } from "../../src/refresh/watch_isolate.ts";
import type { FromWatchIsolate } from "../../src/refresh/watch_messages.ts";

/** Collects what comes back on `port`; `next(match)` waits (under a ceiling) for a message. */
function listen(port: MessagePort) {
  const seen: FromWatchIsolate[] = [];
  let wake: (() => void) | null = null;
  port.onmessage = (event) => {
    seen.push(event.data);
    wake?.();
  };
  return {
    seen,
    async next(match: (message: FromWatchIsolate) => boolean): Promise<FromWatchIsolate> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const found = seen.find(match);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no such message: ${JSON.stringify(seen)}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, 200);
        });
        clearTimeout(timer);
        wake = null;
      }
    },
  };
}

Deno.test("attack: the worker asks to watch a folder outside the roots: lost NotCapable, nothing of it reported", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-watch-host-" }));
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/alpha`, { recursive: true });
  await Deno.mkdir(outside);
  const service = startWatchService();
  assert.ok(service);
  const host = createWatchIsolateHost(service, [root]);
  const channel = new MessageChannel();
  const worker = listen(channel.port1);
  try {
    host.start(channel.port2, () => assert.fail("no inotify?"));
    channel.port1.postMessage({
      type: "open-plan",
      id: 7,
      paths: [root, outside],
      knownError: null,
    });
    const opened = await worker.next((m) => m.type === "opened");
    assert.deepEqual(opened.type === "opened" && opened.lost, [
      { root: outside, folder: ".", why: "NotCapable" },
    ]);
    await Deno.writeTextFile(`${outside}/secret.txt`, "s");
    await Deno.writeTextFile(`${root}/alpha/SKILL.md`, "x");
    await worker.next((m) =>
      m.type === "events" && m.events.some((e) => e.paths.includes(`${root}/alpha/SKILL.md`))
    );
    const reported = worker.seen.flatMap((m) => m.type === "events" ? m.events : [])
      .flatMap((e) => e.paths);
    assert.ok(!reported.some((path) => path.includes("secret")), reported.join(", "));
    // A new request detaches this port: its watches end.
    const again = new MessageChannel();
    host.start(again.port2, () => {});
    assert.equal(service.watchCount, 0);
    again.port1.close();
    assert.equal(host.started, 2);
  } finally {
    host.stop();
    channel.port1.close();
    await service.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack: the worker probes paths through the roots (dot-dot, links out, unclean or relative paths): one NotCapable answer whether or not the target exists", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-watch-host-" }));
  const root = `${base}/root`;
  await Deno.mkdir(`${root}/alpha`, { recursive: true });
  await Deno.mkdir(`${base}/outside/exists`, { recursive: true });
  await Deno.symlink(`${base}/outside/exists`, `${root}/link-exists`);
  await Deno.symlink(`${base}/outside/missing`, `${root}/link-missing`);
  const service = startWatchService();
  assert.ok(service);
  const host = createWatchIsolateHost(service, [`${root}/`]);
  const channel = new MessageChannel();
  const worker = listen(channel.port1);
  // Pairs: the same probe at an existing and at a missing target.
  const probes = [
    [`${root}/../outside/exists`, `${root}/../outside/missing`],
    [`${root}/link-exists`, `${root}/link-missing`],
    [`${root}/./alpha/../../outside/exists`, `${root}/./alpha/../../outside/missing`],
    [`${root}//alpha`, `${root}//no-such`],
    ["root/alpha", "root/no-such"],
    [`${root}/alpha\0`, `${root}/no-such\0`],
    [`${root}-sibling`, `${root}-sibling-missing`],
  ];
  try {
    host.start(channel.port2, () => assert.fail("no inotify?"));
    channel.port1.postMessage({
      type: "open-plan",
      id: 1,
      paths: [root, ...probes.flat()],
      knownError: null,
    });
    const opened = await worker.next((m) => m.type === "opened");
    assert.ok(opened.type === "opened");
    const why = (path: string) => opened.lost.find((lost) => lost.root === path)?.why;
    for (const [present, absent] of probes) {
      assert.equal(why(present!), "NotCapable", present);
      assert.equal(why(absent!), "NotCapable", absent);
    }
    assert.equal(why(root), undefined, "the root itself is watched");
  } finally {
    host.stop();
    channel.port1.close();
    await service.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack: a worker opening watches without end is refused past the bound; a flat watch of a root's folder does not flatten the root's watch", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-watch-host-" }));
  const root = `${base}/root`;
  await Deno.mkdir(`${root}/alpha`, { recursive: true });
  const service = startWatchService();
  assert.ok(service);
  const host = createWatchIsolateHost(service, [root]);
  const channel = new MessageChannel();
  const worker = listen(channel.port1);
  try {
    host.start(channel.port2, () => assert.fail("no inotify?"));
    // The flat watch first (as the owner files' watch starts before live refresh's).
    channel.port1.postMessage({ type: "open-one", id: 1, paths: [root], recursive: false });
    await worker.next((m) => m.type === "opened" && m.id === 1);
    channel.port1.postMessage({ type: "open-plan", id: 2, paths: [root], knownError: null });
    const opened = await worker.next((m) => m.type === "opened" && m.id === 2);
    const watch = opened.type === "opened" ? opened.watches[0] : -1;
    await Deno.writeTextFile(`${root}/alpha/SKILL.md`, "x");
    await worker.next((m) =>
      m.type === "events" &&
      m.events.some((e) => e.watch === watch && e.paths.includes(`${root}/alpha/SKILL.md`))
    );
    for (let id = 3; id < 3 + MAX_WATCHES_PER_PORT; id++) {
      channel.port1.postMessage({ type: "open-plan", id, paths: [root], knownError: null });
    }
    const refused = await worker.next((m) => m.type === "open-failed");
    assert.match(refused.type === "open-failed" ? refused.error.message : "", /open already/);
  } finally {
    host.stop();
    channel.port1.close();
    await service.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("where inotify cannot be used, the worker is told at once and nothing is attached", () => {
  const host = createWatchIsolateHost(null, ["/tmp"]);
  const ended: WatchIsolateEndedMessage[] = [];
  const channel = new MessageChannel();
  host.start(channel.port2, (message) => ended.push(message));
  channel.port1.close();
  assert.deepEqual(ended, [{ type: "watch-isolate-ended", reason: NO_INOTIFY }]);
  assert.equal(host.started, 0);
});
