/**
 * review r18 (hA-2's fix): more probes of the trusted part's watch by a
 * compromised worker: trailing `/`, paths past PATH_MAX, names that are not
 * valid UTF-16 (lone surrogates), a link inside the root to an outside FILE,
 * and `/` itself. Every pair (existing target, missing target) gets the same
 * answer, and nothing outside is watched. Linux only (inotify).
 */

import assert from "node:assert/strict";
import { startWatchService } from "../../src/refresh/inotify/watch_service.ts";

Deno.test({
  name:
    "attack (r18, hA-2): trailing slash, past-PATH_MAX, lone-surrogate, link-to-outside-file and `/` probes get one NotCapable answer whether or not the target exists",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r18-probe-" }));
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/alpha`, { recursive: true });
    await Deno.mkdir(`${base}/outside/exists`, { recursive: true });
    await Deno.writeTextFile(`${base}/outside/secret.txt`, "s");
    await Deno.symlink(`${base}/outside/secret.txt`, `${root}/link-file`);
    await Deno.symlink(`${base}/outside/no-such.txt`, `${root}/link-file-missing`);
    const service = startWatchService();
    assert.ok(service);
    const channel = new MessageChannel();
    const detach = service.attach(channel.port2, [root]);
    const long = "x/".repeat(2100);
    const probes = [
      [`${base}/outside/exists/`, `${base}/outside/missing/`],
      [`${root}/../outside/exists/`, `${root}/../outside/missing/`],
      [`${root}/link-file`, `${root}/link-file-missing`],
      [`${root}/alpha/${long}a`, `${root}/nope/${long}a`],
      [`${root}/\uD800/../../outside/exists`, `${root}/\uD800/../../outside/missing`],
      ["/", "/no-such-top-folder"],
      [`${root}\uD800`, `${root}\uDC00`],
    ];
    try {
      const opened = new Promise<{ lost: { root: string; why: string }[] }>((resolve) => {
        channel.port1.onmessage = (event) => {
          if (event.data?.type === "opened") resolve(event.data);
        };
      });
      channel.port1.postMessage({ type: "open-plan", id: 1, paths: [root, ...probes.flat()] });
      const answer = await opened;
      const why = (path: string) => answer.lost.find((lost) => lost.root === path)?.why;
      for (const [present, absent] of probes) {
        assert.equal(why(present!), "NotCapable", present!.slice(0, 120));
        assert.equal(why(absent!), "NotCapable", absent!.slice(0, 120));
      }
      assert.equal(why(root), undefined, "the root itself is watched");
      assert.equal(service.watchCount, 2, "the root and alpha, nothing else");
    } finally {
      detach();
      channel.port1.close();
      await service.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});
