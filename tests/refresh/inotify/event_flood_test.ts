/**
 * The trusted part's inotify service under a flood: a name renamed back and
 * forth 2,000 times (8,000 kernel events) reaches the serving worker's port
 * as a handful of coalesced events, not one per kernel event. Before, a
 * folder exchanged with a link in a tight loop sent the worker messages of
 * up to 37,000 events: the worker's memory grew past 500 MiB and
 * `skill_list` went unanswered until the flood stopped (CI, session 11).
 */

import assert from "node:assert/strict";
import { createWatchIsolateHost } from "../../../src/sandbox/watch_isolate_host.ts";
import { startWatchService } from "../../../src/refresh/inotify/watch_service.ts";
import type { CarriedEvent, FromWatchIsolate } from "../../../src/refresh/watch_messages.ts";

Deno.test({
  name:
    "attack: a name renamed back and forth 2,000 times reaches the worker as a few coalesced events, each path once per message",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-flood-" }));
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/team/t0`, { recursive: true });
    const service = startWatchService();
    assert.ok(service, "inotify is there on Linux");
    const host = createWatchIsolateHost(service, [root]);
    const channel = new MessageChannel();
    const messages: FromWatchIsolate[] = [];
    channel.port1.onmessage = (event) => messages.push(event.data);
    try {
      host.start(channel.port2, () => assert.fail("no inotify?"));
      channel.port1.postMessage({ type: "open-plan", id: 1, paths: [root], knownError: null });
      const deadline = Date.now() + 20_000;
      while (!messages.some((message) => message.type === "opened")) {
        assert.ok(Date.now() < deadline, "never opened");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Synchronous: the service reads all 8,000 events (two per rename; under the kernel's 16,384) at once.
      for (let round = 0; round < 2_000; round++) {
        Deno.renameSync(`${root}/team`, `${root}/team.new`);
        Deno.renameSync(`${root}/team.new`, `${root}/team`);
      }
      const carried = (): CarriedEvent[] =>
        messages.flatMap((message) => message.type === "events" ? message.events : []);
      while (!carried().some((event) => event.paths.includes(`${root}/team.new`))) {
        assert.ok(Date.now() < deadline, `no event came: ${JSON.stringify(messages)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Whatever else comes comes within a few turns.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const message of messages) {
        if (message.type !== "events") continue;
        const keys = message.events.map((event) =>
          `${event.watch} ${event.kind} ${event.paths.join(" ")} ${event.flag ?? ""}`
        );
        assert.equal(new Set(keys).size, keys.length, `a path twice in one message: ${keys}`);
      }
      assert.ok(carried().length <= 16, `${carried().length} events carried for 8,000`);
    } finally {
      host.stop();
      channel.port1.close();
      await service.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});
