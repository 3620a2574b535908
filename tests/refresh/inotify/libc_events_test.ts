import assert from "node:assert/strict";
import {
  encodeEvents,
  IN_CREATE,
  IN_ISDIR,
  IN_MODIFY,
  IN_Q_OVERFLOW,
  parseEvents,
  READ_BUFFER_BYTES,
  WATCH_MASK,
} from "../../../src/refresh/inotify/events.ts";
import {
  ENOENT,
  ENOTDIR,
  O_CLOEXEC,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_PATH,
  openLibc,
} from "../../../src/refresh/inotify/libc.ts";

const AT_FDCWD = -100;

Deno.test("parseEvents reads records with and without names, in order", () => {
  const events = [
    { wd: 1, mask: IN_CREATE | IN_ISDIR, cookie: 0, name: "skill-a" },
    { wd: 2, mask: IN_MODIFY, cookie: 0, name: "" },
    { wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" },
    { wd: 3, mask: IN_MODIFY, cookie: 7, name: "naïve-ü-0123456789abcdef" },
  ];
  assert.deepEqual(parseEvents(encodeEvents(events)), events);
});

Deno.test("parseEvents drops a record cut short and everything after it", () => {
  const bytes = encodeEvents([
    { wd: 1, mask: IN_MODIFY, cookie: 0, name: "a" },
    { wd: 2, mask: IN_MODIFY, cookie: 0, name: "b" },
  ]);
  const cut = bytes.subarray(0, bytes.length - 3);
  assert.deepEqual(parseEvents(cut), [{ wd: 1, mask: IN_MODIFY, cookie: 0, name: "a" }]);
  assert.deepEqual(parseEvents(new Uint8Array(5)), []);
});

Deno.test("libc: a real inotify watch through an O_PATH descriptor reports a file's creation", async () => {
  const libc = openLibc();
  assert.ok(libc, "libc loads on Linux");
  const folder = await Deno.makeTempDir();
  const inotify = libc.inotifyInit();
  const wake = libc.eventFd();
  const dirFd = libc.openAt(AT_FDCWD, folder, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  try {
    assert.ok(inotify >= 0 && wake >= 0 && dirFd >= 0);
    const wd = libc.addWatch(inotify, `/proc/self/fd/${dirFd}`, WATCH_MASK);
    assert.ok(wd > 0);
    await Deno.writeTextFile(`${folder}/note.txt`, "x");
    assert.deepEqual(await libc.pollReadable([inotify, wake], 5_000), [true, false]);
    const buffer = new Uint8Array(READ_BUFFER_BYTES);
    const read = libc.read(inotify, buffer);
    const names = parseEvents(buffer.subarray(0, read)).map((event) => [event.wd, event.name]);
    assert.deepEqual(names[0], [wd, "note.txt"]);
    // The eventfd wakes a waiting poll (how the watch is stopped).
    const waiting = libc.pollReadable([inotify, wake], 5_000);
    assert.equal(libc.signal(wake), 8);
    assert.deepEqual(await waiting, [false, true]);
  } finally {
    libc.close(dirFd);
    libc.close(wake);
    libc.close(inotify);
    libc.unload();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("libc: openat answers -errno; O_DIRECTORY|O_NOFOLLOW refuses a symlink to a folder", async () => {
  const libc = openLibc()!;
  const folder = await Deno.makeTempDir();
  try {
    await Deno.symlink("/", `${folder}/link`);
    const flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    assert.equal(libc.openAt(AT_FDCWD, `${folder}/missing`, flags), -ENOENT);
    // With O_PATH, O_NOFOLLOW alone would open the link itself; O_DIRECTORY then refuses it.
    assert.equal(libc.openAt(AT_FDCWD, `${folder}/link`, flags), -ENOTDIR);
  } finally {
    libc.unload();
    await Deno.remove(folder, { recursive: true });
  }
});
