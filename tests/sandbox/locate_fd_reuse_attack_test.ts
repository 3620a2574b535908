/**
 * Review r10 (issue 13, s23: cheaper locate answers): a descriptor number is
 * reused by the kernel as soon as it is closed, so the location the trusted
 * part answers must be read for each request, never remembered by number (a
 * `/proc/self/fd` survey or a cache keyed by fd would place a new file where
 * the old one was). The worker's client and the trusted part's answer, wired
 * as in the program (postMessage replaced by a queue), over real descriptors.
 */

import assert from "node:assert/strict";
import { closeSync, constants, openSync } from "node:fs";
import { createFdLocateClient } from "../../src/sandbox/fd_locate_client.ts";
import { answerLocateRequest } from "../../src/sandbox/fd_locate_answer.ts";
import { MAX_LOCATE_FDS, parseWorkerMessage } from "../../src/sandbox/messages.ts";

/**
 * A port to the real trusted-side answer (`answerLocateRequest`), replies delivered later, for an
 * asker that may read `readable`.
 */
function trustedPort(readable: readonly string[]) {
  const target = new EventTarget();
  return {
    postMessage: (message: unknown) => {
      answerLocateRequest(parseWorkerMessage(message), (reply) => {
        setTimeout(() => target.dispatchEvent(new MessageEvent("message", { data: reply })), 0);
      }, readable);
    },
    addEventListener: (type: "message", listener: (event: MessageEvent) => void) =>
      target.addEventListener(type, listener as EventListener),
  };
}

Deno.test({
  name:
    "attack: a descriptor number closed and reused for another file is located at the new file, one by one and in batches",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r10-fd-" }));
    try {
      const names = Array.from({ length: 40 }, (_, index) => `${dir}/file-${index}.md`);
      for (const name of names) await Deno.writeTextFile(name, name);
      const locate = createFdLocateClient(trustedPort([dir]));
      const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
      let reused = 0;
      for (let round = 0; round < 20; round++) {
        // One at a time: each file takes the number the last one freed.
        const first = openSync(names[round]!, flags);
        assert.equal(await locate(first), names[round]);
        closeSync(first);
        const second = openSync(names[round + 20]!, flags);
        if (second === first) reused++;
        assert.equal(await locate(second), names[round + 20], `round ${round}: fd ${second}`);
        closeSync(second);
      }
      assert.ok(reused > 0, "the kernel never reused a number: the attack proved nothing");
      // Batches: a wave of opens located together, closed, then another wave on the same numbers.
      for (let wave = 0; wave < 4; wave++) {
        const files = wave % 2 === 0 ? names.slice(0, 20) : names.slice(20);
        const fds = files.map((name) => openSync(name, flags));
        const paths = await Promise.all(fds.map((fd) => locate(fd)));
        for (const fd of fds) closeSync(fd);
        assert.deepEqual(paths, files, `wave ${wave}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "attack: more locate requests at once than one batch message may carry (MAX_LOCATE_FDS) are each answered, not dropped to a fail-closed timeout",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r10-fd-" }));
    try {
      await Deno.writeTextFile(`${dir}/one.md`, "one\n");
      const fd = openSync(`${dir}/one.md`, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const locate = createFdLocateClient(trustedPort([dir]));
        const count = MAX_LOCATE_FDS + 500;
        const paths = await Promise.all(Array.from({ length: count }, () => locate(fd)));
        const wrong = paths.filter((path) => path !== `${dir}/one.md`).length;
        assert.equal(wrong, 0, `${wrong} of ${count} locates not answered with the file's path`);
      } finally {
        closeSync(fd);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
