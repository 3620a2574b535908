/**
 * Session 16: the trusted part reads folders through its descriptor with
 * direct calls (`getdents64` on its own open of the folder, `statx` of each
 * entry; `src/files/folder_calls_native.ts`) instead of Deno's `readDirSync`
 * and `lstatSync` of `/proc/self/fd/<fd>`. The index cache compares
 * identities read both ways, and the listing's kinds decide what is served,
 * so the two must answer exactly the same for every kind of entry: files,
 * folders, symlinks (to files, folders, nothing), a FIFO, a name that is not
 * UTF-8, a time before the epoch, many names (several `getdents64` calls),
 * an entry gone between the listing and its stat, and device files.
 *
 * @module
 */

import assert from "node:assert/strict";
import { loadFolderOpener } from "../../src/files/folder_beneath.ts";
import {
  type FolderReadRequest,
  lstatThroughProc,
  readFolderOrBusySync,
} from "../../src/files/fd_listing.ts";

const isLinux = Deno.build.os === "linux";

/** The opener and its direct calls (Linux, --allow-ffi). */
function directCalls() {
  const opener = loadFolderOpener();
  assert.ok(opener !== null, "libc loads (Linux, --allow-ffi)");
  return opener;
}

/** Reads `path` both ways (Deno's calls, then the direct ones) through one descriptor. */
function bothWays(path: string, request: Omit<FolderReadRequest, "fd">) {
  const opener = directCalls();
  const fd = opener.openRoot(path);
  assert.ok(fd >= 0, `opens ${path}`);
  try {
    const viaProc = readFolderOrBusySync({ fd, ...request });
    const direct = readFolderOrBusySync({ fd, ...request }, undefined, opener.calls);
    return { viaProc, direct };
  } finally {
    opener.close(fd);
  }
}

/** A folder holding one entry of every kind the listing tells apart. */
function makeEveryKind(dir: string): void {
  Deno.writeTextFileSync(`${dir}/SKILL.md`, "---\nname: s\n---\nbody\n");
  Deno.writeTextFileSync(`${dir}/empty.txt`, "");
  Deno.mkdirSync(`${dir}/references/deep`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/references/guide.md`, "g".repeat(5_000));
  Deno.symlinkSync("SKILL.md", `${dir}/to-file`);
  Deno.symlinkSync("references", `${dir}/to-folder`);
  Deno.symlinkSync("nowhere", `${dir}/dangling`);
  new Deno.Command("mkfifo", { args: [`${dir}/pipe`] }).outputSync();
  Deno.writeTextFileSync(`${dir}/.hidden`, "h");
  Deno.mkdirSync(`${dir}/node_modules`);
  Deno.writeTextFileSync(`${dir}/old.txt`, "before the epoch");
  Deno.utimeSync(`${dir}/old.txt`, -86_400.25, -86_400.25);
  Deno.writeTextFileSync(`${dir}/recent.txt`, "ms");
  Deno.utimeSync(`${dir}/recent.txt`, 1_700_000_000.9876, 1_700_000_000.9876);
}

Deno.test({
  name:
    "folder read: the direct calls answer exactly what Deno's calls through /proc answer, for every kind of entry",
  ignore: !isLinux,
  fn: () => {
    const dir = Deno.makeTempDirSync({ prefix: "folder-calls-" });
    try {
      makeEveryKind(dir);
      // A name that is not UTF-8 (Deno names it with U+FFFD): written through a shell.
      new Deno.Command("sh", {
        args: ["-c", `printf x > "$1/$(printf 'bad\\377name')"`, "sh", dir],
      })
        .outputSync();
      for (const maxStats of [0, 3, 1_000]) {
        const { viaProc, direct } = bothWays(dir, { maxStats });
        assert.ok(viaProc !== null && typeof viaProc === "object", "Deno's read answers");
        assert.deepEqual(direct, viaProc, `maxStats ${maxStats}`);
      }
      const { viaProc } = bothWays(dir, { maxStats: 1_000 });
      assert.ok(typeof viaProc === "object" && viaProc !== null);
      const kinds = Object.fromEntries(viaProc.entries.map((entry) => [entry.name, entry.kind]));
      assert.equal(kinds["pipe"], "other");
      assert.equal(kinds["to-folder"], "symlink");
      assert.equal(kinds["references"], "dir");
      assert.ok(viaProc.entries.some((entry) => entry.name === "bad\uFFFDname"), "lossy name");
      const old = viaProc.entries.find((entry) => entry.name === "old.txt");
      assert.equal(old?.stat?.mtimeMs, -86_400_250, "a time before the epoch, as Deno gives it");
      const named = ["SKILL.md", "missing", "to-file", "../x", ""];
      const byName = bothWays(dir, { maxStats: 0, names: named });
      assert.deepEqual(byName.direct, byName.viaProc, "stats of named entries");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "folder read: a folder of 3,000 entries (several getdents64 calls) lists the same, and past the read cap is counted the same",
  ignore: !isLinux,
  fn: () => {
    const dir = Deno.makeTempDirSync({ prefix: "folder-calls-many-" });
    try {
      for (let i = 0; i < 3_000; i++) {
        Deno.writeTextFileSync(
          `${dir}/file-with-a-longer-name-${String(i).padStart(5, "0")}.md`,
          "",
        );
      }
      const { viaProc, direct } = bothWays(dir, { maxStats: 64 });
      assert.ok(typeof viaProc === "object" && viaProc !== null);
      assert.equal(viaProc.entries.length, 3_000);
      assert.deepEqual(direct, viaProc);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "folder read: an entry's stat by the direct calls equals Deno's lstat for device files, the root and /proc",
  ignore: !isLinux,
  fn: () => {
    const opener = directCalls();
    for (
      const [folder, names] of [["/dev", ["null", "zero", "fd", "shm"]], ["/", [
        "tmp",
        "proc",
      ]]] as const
    ) {
      const fd = opener.openRoot(folder);
      assert.ok(fd >= 0);
      try {
        for (const name of names) {
          assert.deepEqual(
            opener.calls.lstatAt(fd, name),
            lstatThroughProc(fd, name),
            `${folder}/${name}`,
          );
        }
        assert.equal(opener.calls.lstatAt(fd, "no-such-entry-here"), null);
      } finally {
        opener.close(fd);
      }
    }
  },
});

Deno.test({
  name:
    "folder read: a descriptor that is not a folder, or closed, answers null by the direct calls as by Deno's",
  ignore: !isLinux,
  fn: () => {
    const opener = directCalls();
    const file = Deno.makeTempFileSync();
    try {
      using handle = Deno.openSync(file);
      // A regular file's descriptor (Deno's resource id is not an OS descriptor: find it in /proc).
      const fds = [...Deno.readDirSync("/proc/self/fd")].map((entry) => Number(entry.name));
      const fd = fds.find((at) => {
        try {
          return Deno.readLinkSync(`/proc/self/fd/${at}`) === file;
        } catch {
          return false;
        }
      });
      assert.ok(fd !== undefined && handle !== null);
      assert.equal(readFolderOrBusySync({ fd, maxStats: 0 }, undefined, opener.calls), null);
      assert.equal(readFolderOrBusySync({ fd, maxStats: 0 }), null);
      assert.equal(
        readFolderOrBusySync({ fd: 1_000_000, maxStats: 0 }, undefined, opener.calls),
        null,
      );
    } finally {
      Deno.removeSync(file);
    }
  },
});
