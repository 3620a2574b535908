/** The trusted part's answer to an isolate's descriptor-location request (`answerLocateRequest`). */

import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import {
  answerLocateRequest,
  type LocateAnswerMessage,
} from "../../src/sandbox/fd_locate_answer.ts";
import type { ReadFoldersReplyMessage } from "../../src/sandbox/messages.ts";
import type { FolderRead } from "../../src/files/fd_listing.ts";

Deno.test("answerLocateRequest() answers a batch before it returns, each descriptor with the real path the kernel gives, in order", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const fds: number[] = [];
  try {
    for (const name of ["a.txt", "b.txt"]) await Deno.writeTextFile(join(dir, name), name);
    // Opened through a link: the answer is where the descriptor is, never the name it was opened by.
    await Deno.symlink(join(dir, "b.txt"), join(dir, "link.txt"));
    const a = openSync(join(dir, "a.txt"), "r");
    fds.push(a);
    const viaLink = openSync(join(dir, "link.txt"), "r");
    fds.push(viaLink);
    const replies: LocateAnswerMessage[] = [];
    const handled = answerLocateRequest(
      { type: "locate-fds", id: 4, fds: [viaLink, -1, a] },
      (answer) => replies.push(answer),
      [dir],
    );
    assert.equal(handled, true);
    assert.deepEqual(replies, [{
      type: "locate-fds-reply",
      id: 4,
      paths: [join(dir, "b.txt"), null, join(dir, "a.txt")],
    }]);
  } finally {
    for (const fd of fds) closeSync(fd);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("answerLocateRequest() answers a lone request at once, null for a descriptor that is not open", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(join(dir, "a.txt"), "a");
    const fd = openSync(join(dir, "a.txt"), "r");
    const replies: LocateAnswerMessage[] = [];
    try {
      answerLocateRequest({ type: "locate-fd", id: 1, fd }, (answer) => replies.push(answer), [
        dir,
      ]);
    } finally {
      closeSync(fd);
    }
    // Closed now: nothing stands behind the number any more.
    answerLocateRequest({ type: "locate-fd", id: 2, fd }, (answer) => replies.push(answer), [dir]);
    assert.deepEqual(replies, [
      { type: "locate-fd-reply", id: 1, path: join(dir, "a.txt") },
      { type: "locate-fd-reply", id: 2, path: null },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("answerLocateRequest() leaves any other message alone and replies nothing", () => {
  const replies: unknown[] = [];
  assert.equal(answerLocateRequest(null, (answer) => replies.push(answer)), false);
  assert.deepEqual(replies, []);
});

Deno.test("answerLocateRequest() reads an open folder through its descriptor only inside the asker's read permission (review r10)", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const fds: number[] = [];
  try {
    await Deno.mkdir(join(base, "root/skill"), { recursive: true });
    await Deno.mkdir(join(base, "outside"));
    await Deno.writeTextFile(join(base, "root/skill/a.txt"), "aaa");
    await Deno.writeTextFile(join(base, "outside/secret-name.txt"), "s");
    const inside = openSync(join(base, "root/skill"), "r");
    fds.push(inside);
    const outside = openSync(join(base, "outside"), "r");
    fds.push(outside);
    const replies: LocateAnswerMessage[] = [];
    const handled = answerLocateRequest(
      {
        type: "read-folders",
        id: 9,
        requests: [{ fd: inside, maxStats: 8 }, { fd: outside, maxStats: 8 }],
      },
      (answer) => replies.push(answer),
      [join(base, "root")],
    );
    assert.equal(handled, true);
    const reply = replies[0] as ReadFoldersReplyMessage;
    assert.equal(reply.type, "read-folders-reply");
    const read = reply.reads[0] as FolderRead | null;
    assert.equal(read?.location, join(base, "root/skill"));
    assert.deepEqual(read?.entries.map((entry) => [entry.name, entry.stat?.size]), [[
      "a.txt",
      3,
    ]]);
    // A folder outside the asker's read permission is never read for it, whatever it opened.
    assert.equal(reply.reads[1], null);
    assert.doesNotMatch(JSON.stringify(replies), /secret-name/);
  } finally {
    for (const fd of fds) closeSync(fd);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack: an isolate asking where a descriptor outside its read permission points (one, or in a batch) learns nothing (review r12)", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const fds: number[] = [];
  try {
    await Deno.mkdir(join(base, "root"));
    await Deno.mkdir(join(base, "trusted"));
    await Deno.writeTextFile(join(base, "root/a.txt"), "a");
    // Stands for a descriptor of the trusted thread's own (the token file, the configuration).
    await Deno.writeTextFile(join(base, "trusted/token"), "secret-place");
    const inside = openSync(join(base, "root/a.txt"), "r");
    fds.push(inside);
    const theirs = openSync(join(base, "trusted/token"), "r");
    fds.push(theirs);
    const replies: LocateAnswerMessage[] = [];
    const readable = [join(base, "root")];
    answerLocateRequest({ type: "locate-fd", id: 1, fd: theirs }, (a) => replies.push(a), readable);
    answerLocateRequest(
      { type: "locate-fds", id: 2, fds: [inside, theirs] },
      (answer) => replies.push(answer),
      readable,
    );
    assert.deepEqual(replies, [
      { type: "locate-fd-reply", id: 1, path: null },
      { type: "locate-fds-reply", id: 2, paths: [join(base, "root/a.txt"), null] },
    ]);
    assert.ok(!JSON.stringify(replies).includes("trusted"), "no path outside the read set");
  } finally {
    for (const fd of fds) closeSync(fd);
    await Deno.remove(base, { recursive: true });
  }
});
